// Compare's statistics table, computed in the browser (joined after probcore.js into Compare's module): one row of
// strings per mapping, the cells of the server's table (views/compare/compute.py statistics_row) written as Python
// writes them (f"{v:.4f}", f"{v:.3g}": correctly rounded, an exact tie to even). tests/test_live_stats_parity.py
// checks every cell against the server's strings.

/** |v| rounded as Python rounds it, as {kept, power} (value = kept x 10^power): to ``places`` digits after the point
 * (``fixed``) or to ``places`` + 1 significant digits. JS's toFixed / toExponential round the exact value to the
 * nearest too, but an exact tie up (the larger digits), where Python takes the even one. */
function pyRound(a, places, fixed) {
  const parse = (text, digits) => {
    const [mantissa, exp = "0"] = text.split("e");
    return { kept: BigInt(mantissa.replace(".", "")), power: fixed ? -digits : Number(exp) - digits };
  };
  const longer = fixed ? a.toFixed(places + 1) : a.toExponential(places + 1);  // one digit more than kept
  const { kept: d, power } = parse(longer, places + 1);
  const exact = Number(longer) === a && (power >= 0 || d % 5n ** BigInt(-power) === 0n);
  if (d % 10n === 5n && exact) {  // an exact tie: to the even digit
    const low = d / 10n;
    return { kept: low % 2n === 0n ? low : low + 1n, power: power + 1 };
  }
  return parse(fixed ? a.toFixed(places) : a.toExponential(places), places);
}

const signOf = (v) => (v < 0 || Object.is(v, -0) ? "-" : "");

/** Python's f"{v:.{places}f}". */
export function py_fixed(v, places) {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  const { kept } = pyRound(Math.abs(v), places, true);
  const text = kept.toString().padStart(places + 1, "0");
  return `${signOf(v)}${places ? `${text.slice(0, -places)}.${text.slice(-places)}` : text}`;
}

/** Python's f"{v:.{precision}g}": ``precision`` significant digits, scientific below 1e-4 or from 10^precision,
 * trailing zeros dropped, the exponent with a sign and at least two digits. */
export function py_general(v, precision = 3) {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  const sign = signOf(v);
  if (v === 0) return `${sign}0`;
  const { kept, power } = pyRound(Math.abs(v), precision - 1, false);
  let text = kept.toString();
  const exp = power + text.length - 1;  // the decimal exponent of the first digit
  text = text.slice(0, precision);  // a tie carried to one digit more (9.995 -> 10.00) holds zeros there
  const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  if (exp < -4 || exp >= precision) {
    const e = `${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    return `${sign}${strip(`${text[0]}.${text.slice(1)}`)}e${e}`;
  }
  const places = precision - 1 - exp;
  const padded = text.padStart(places + 1, "0");
  return `${sign}${strip(places > 0 ? `${padded.slice(0, -places)}.${padded.slice(-places)}` : padded)}`;
}

/** A short text of a vector (explorer.drawing.ui.vector): all entries up to ``limit``, else its first ones and its
 * Euclidean norm. */
export function vector_text(v, limit = 8) {
  const head = Array.from(v).slice(0, limit).map((a) => py_general(a, 3)).join(", ");
  if (v.length <= limit) return `[${head}]`;
  return `[${head}, …] ‖·‖₂ = ${py_general(Math.sqrt(Array.from(v).reduce((s, a) => s + a * a, 0)), 3)}`;
}

/** The Shannon entropy -Σ p log p (0 log 0 = 0), never below +0 (explorer.compute.entropy). */
export function entropy(p) {
  return Math.max(-sum(Array.from(p, (v) => (v > 0 ? v * Math.log(v) : 0))), 0) + 0;
}

/** One row of Compare's statistics table for mapping ``name`` at logits ``x`` (keyword arguments ``kw``, class
 * ``target``), as strings: {support, entropy, max_p, sum, loss, grad, underflow (a p > 0 rounded to 0), no_loss}.
 * ``support_words``: the support's text when some p underflows ("{support} ({under} rounded to 0)"). */
export function statistics_row(name, x, kw, target, support_words, p = probabilities(name, x, kw, target)) {
  const zero = Array.prototype.some.call(p, (v) => v === 0);
  const positive = zero ? positive_exactly(name, x, kw) : null;
  const under = zero ? Array.prototype.filter.call(p, (v, i) => v === 0 && positive[i]).length : 0;
  const size = Array.prototype.filter.call(p, (v) => v !== 0).length + under;
  const loss = LOSSES[name] ? LOSSES[name](x, target, kw) : null;
  const grad = loss === null ? null : loss_grad(name, x, target, kw);
  return {
    support: under ? support_words.replace("{support}", size).replace("{under}", under) : String(size),
    entropy: py_fixed(entropy(p), 4),
    max_p: py_fixed(Math.max(...p), 4),
    sum: py_fixed(sum(p), 6),
    loss: loss === null ? "—" : py_fixed(loss, 4),
    grad: grad === null ? "—" : vector_text(grad),
    underflow: under > 0,
    no_loss: loss === null,
  };
}
