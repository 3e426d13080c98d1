// probcore in the browser: one-vector float64 versions of probcore.reference (same names, same
// formulas, same parameter checks), the Jacobians of probcore.jacobian, the loss gradients, the loss
// plane of views.loss_landscape.compute.loss_surface and the T / alpha paths of the Sweeps page.
// A plain ES module (no build step). Input: an array of numbers, -Infinity allowed (probability 0;
// all -Infinity gives all zeros). Bad parameters throw ValueError with probcore._validate's message.
// Gumbel-softmax (a seeded sample) is not here: its samples stay server-side.
// tests/test_live_parity.py checks every function here against probcore on generated cases.

export class ValueError extends Error {
  constructor(message) { super(message); this.name = "ValueError"; }
}

// ---------------------------------------------------------------- parameter checks (probcore._validate)

export const NOISES = ["gumbel", "normal", "uniform", "logistic"];

function repr(value) {
  if (typeof value === "string") return `'${value}'`;
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "nan";
    if (value === Infinity) return "inf";
    if (value === -Infinity) return "-inf";
  }
  return String(value);
}

function real(name, value) {
  if (typeof value !== "number") throw new ValueError(`${name} must be a real number, got ${repr(value)}`);
  if (Number.isNaN(value)) throw new ValueError(`${name} must be a real number, got nan`);
  return value;
}

const isInt = (v) => typeof v === "number" && Number.isInteger(v);

export function check_temperature(temperature) {
  const t = real("temperature", temperature);
  if (t === 0 || !Number.isFinite(t))
    throw new ValueError(`temperature must be finite and non-zero (negative gives softmin), got ${repr(temperature)}`);
  return t;
}

export function check_beta(beta) {
  const b = real("beta", beta);
  if (!Number.isFinite(b)) throw new ValueError(`beta must be finite, got ${repr(beta)}`);
  return b;
}

/** The largest Taylor order: the largest even k with 1/k! a normal float64 (probcore._validate.MAX_ORDER). */
export const MAX_ORDER = 170;

export function check_order(order) {
  if (!isInt(order) || order < 2 || order > MAX_ORDER || order % 2)
    throw new ValueError(`order must be an even integer >= 2 and <= ${MAX_ORDER}, got ${repr(order)}`);
  return order;
}

export function check_k(k, n) {
  if (!isInt(k) || !(1 <= k && k <= n)) throw new ValueError(`k must be an integer in [1, ${n}] (n = ${n}), got ${repr(k)}`);
  return k;
}

export function check_top_p(top_p) {
  const p = real("top_p", top_p);
  if (!(0 < p && p <= 1)) throw new ValueError(`top_p must be in (0, 1], got ${repr(top_p)}`);
  return p;
}

export function check_alpha(alpha) {
  const a = real("alpha", alpha);
  if (!(a > 0) || !Number.isFinite(a)) throw new ValueError(`alpha must be a finite real > 0, got ${repr(alpha)}`);
  return a;
}

export function check_noise(noise) {
  if (!NOISES.includes(noise)) throw new ValueError(`noise must be one of ${NOISES.join(", ")}; got ${repr(noise)}`);
  return noise;
}

export function check_nonnegative(name, value) {
  const v = real(name, value);
  if (!(0 <= v && v < Infinity)) throw new ValueError(`${name} must be in [0, inf), got ${repr(value)}`);
  return v;
}

export function check_positive(name, value) {
  const v = real(name, value);
  if (!(0 < v && v < Infinity)) throw new ValueError(`${name} must be in (0, inf), got ${repr(value)}`);
  return v;
}

export function check_positive_int(name, value, low = 1) {
  if (!isInt(value) || value < low) throw new ValueError(`${name} must be an integer >= ${low}, got ${repr(value)}`);
  return value;
}

export function check_temperature_or_beta(temperature, beta) {
  if (beta !== null && beta !== undefined && temperature !== 1)
    throw new ValueError("give either temperature or beta (beta = 1 / temperature), not both");
}

export function check_k_or_top_p(k, top_p) {
  if ((k === null || k === undefined) === (top_p === null || top_p === undefined))
    throw new ValueError("give exactly one of k (an integer in [1, n]) or top_p (a real in (0, 1])");
}

function vector(x) {
  if (!Array.isArray(x) && !(x instanceof Float64Array)) throw new ValueError("x must be a 1-D array of floats");
  const out = Float64Array.from(x);
  for (const v of out) if (Number.isNaN(v)) throw new ValueError("x must be a 1-D array of floats without NaN");
  return out;
}

function checkTarget(target, n) {
  if (!isInt(target) || !(0 <= target && target < n))
    throw new ValueError(`target must be a class index in [0, ${n - 1}], got ${repr(target)}`);
  return target;
}

// ---------------------------------------------------------------- helpers

/** sum_i a_i in numpy's order (pairwise: 8 accumulators in blocks of 128), so sums round as numpy's. */
export function sum(a, start = 0, n = a.length - start) {
  if (n < 8) {
    let s = -0.0;
    for (let i = 0; i < n; i++) s += a[start + i];
    return n ? s : 0;
  }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
    let s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) s += a[start + i];
    return s;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return sum(a, start, half) + sum(a, start + half, n - half);
}

function max(a) {
  let top = -Infinity;
  for (const v of a) if (v > top) top = v;
  return top;
}

function cumsum(a) {
  const out = new Float64Array(a.length);
  let s = 0;
  for (let i = 0; i < a.length; i++) out[i] = s += a[i];
  return out;
}

const sortedDescending = (z) => Float64Array.from(z).sort().reverse();

/** z = x / T (or z = beta x); -inf entries stay -inf for any sign of T or beta. */
function scaled(x, temperature = 1, beta = null) {
  x = vector(x);
  check_temperature_or_beta(temperature, beta);
  const c = beta !== null && beta !== undefined ? check_beta(beta) : null;
  const t = c === null ? check_temperature(temperature) : null;
  return x.map((v) => (v === -Infinity ? -Infinity : c === null ? v / t : v * c));
}

/** z - max z (shift-invariant maps see max 0); an all -inf vector stays as it is. */
function shifted(z) {
  const top = max(z);
  return Number.isFinite(top) ? z.map((v) => v - top) : z;
}

/** w / sum w; a zero sum (everything masked) gives zeros. */
function normalize(w) {
  const total = sum(w);
  return total !== 0 ? w.map((v) => v / total) : w;
}

/** log sum_i exp(z_i) = max z + log sum_i exp(z_i - max z). */
function logsumexp(z) {
  const top = max(z);
  return Number.isFinite(top) ? top + Math.log(sum(z.map((v) => Math.exp(v - top)))) : top;
}

/** erf(x): the series 2/sqrt(pi) e^(-x^2) sum_k (2x^2)^k x / (1 3 ... (2k+1)) below |x| = 3 (positive
 * terms: no cancellation), 1 - erfc(x) by its continued fraction above. */
export function erf(x) {
  const a = Math.abs(x);
  let r;
  if (a < 3) {
    let term = a, total = a;
    for (let k = 1; term > 1e-17 * total; k++) {
      term *= (2 * a * a) / (2 * k + 1);
      total += term;
    }
    r = (2 / Math.sqrt(Math.PI)) * Math.exp(-a * a) * total;
  } else if (a < 27) {
    let f = 0;  // erfc(a) = e^(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))), evaluated from the tail
    for (let k = 60; k >= 1; k--) f = (k / 2) / (a + f);
    r = 1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / (a + f);
  } else r = 1;
  return x < 0 ? -r : r;
}

// noise: pdf, cdf, the quadrature interval holding all but ~1e-17 of the mass (as probcore.reference)
const NOISE = {
  gumbel: { pdf: (e) => Math.exp(-e - Math.exp(-e)), cdf: (e) => Math.exp(-Math.exp(-e)), range: [-5, 40] },
  normal: { pdf: (e) => Math.exp((-e * e) / 2) / Math.sqrt(2 * Math.PI), cdf: (e) => (1 + erf(e / Math.SQRT2)) / 2, range: [-10, 10] },
  uniform: { pdf: (e) => (0 <= e && e <= 1 ? 1 : 0), cdf: (e) => Math.min(Math.max(e, 0), 1), range: [0, 1] },
  logistic: {
    pdf: (e) => Math.exp(-Math.abs(e)) / (1 + Math.exp(-Math.abs(e))) ** 2, cdf: (e) => 1 / (1 + Math.exp(-e)), range: [-40, 40],
  },
};

/** Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_n from the Chebyshev guesses). */
export function leggauss(n) {
  const nodes = new Float64Array(n), weights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let x = -Math.cos((Math.PI * (i + 0.75)) / (n + 0.5)), dp = 1;
    for (let iter = 0; iter < 100; iter++) {
      let p0 = 1, p1 = x;
      for (let k = 2; k <= n; k++) [p0, p1] = [p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k];
      dp = (n * (x * p1 - p0)) / (x * x - 1);
      const step = p1 / dp;
      x -= step;
      if (Math.abs(step) < 1e-16) break;
    }
    let p0 = 1, p1 = x;
    for (let k = 2; k <= n; k++) [p0, p1] = [p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k];
    dp = (n * (x * p1 - p0)) / (x * x - 1);
    nodes[i] = n === 1 ? 0 : x;
    weights[i] = n === 1 ? 2 : 2 / ((1 - x * x) * dp * dp);
  }
  return [nodes, weights];
}

/** Nodes t and weights w for int dt over where max_j (z_j + eps_j) lies: smooth noises, the trapezoid
 * rule on n_points (default 400) nodes over max z + [lo, hi]; uniform, Gauss-Legendre with n_points
 * (default n // 2 + 1) nodes on each piece between the breakpoints z_j, z_j + 1. */
function quadrature(noise, z, n_points = null) {
  if (n_points !== null) check_positive_int("n_points", n_points, 2);
  const top = max(z);
  if (noise === "uniform") {
    const clip = (v) => Math.min(Math.max(v, top), top + 1);
    const cuts = [...new Set([...z, ...z.map((v) => v + 1)].map(clip))].sort((a, b) => a - b);
    const [nodes, weights] = leggauss(n_points || Math.floor(z.length / 2) + 1);
    const t = [], w = [];
    for (let c = 0; c + 1 < cuts.length; c++) {
      const width = cuts[c + 1] - cuts[c];
      for (let q = 0; q < nodes.length; q++) {
        t.push(cuts[c] + (width * (nodes[q] + 1)) / 2);
        w.push((width * weights[q]) / 2);
      }
    }
    return [t, w];
  }
  const [lo, hi] = NOISE[noise].range;
  const m = n_points || 400, step = (hi - lo) / (m - 1);
  const t = Array.from({ length: m }, (_, i) => top + (i === m - 1 ? hi : lo + i * step));
  return [t, new Array(m).fill((hi - lo) / (m - 1))];
}

// ---------------------------------------------------------------- mappings

/** p_i = exp(z_i) / sum_j exp(z_j),  z = x / T  (or z = beta x). */
export function softmax(x, temperature = 1, beta = null) {
  const z = scaled(x, temperature, beta);
  return normalize(shifted(z).map(Math.exp));
}

/** T log sum_i exp(x_i / T)  (-> max x as T -> 0+). */
export function smooth_max(x, temperature = 1) {
  return temperature * logsumexp(scaled(x, temperature));
}

const factorial = (m) => (m <= 1 ? 1 : m * factorial(m - 1));

/** f_k(z) = sum_{m=0..k} z^m / m! (0 where z = -inf). */
function taylorF(z, order) {
  return z.map((v) => {
    if (v === -Infinity) return 0;
    let f = 0;
    for (let m = 0; m <= order; m++) f += v ** m / factorial(m);
    return f;
  });
}

/** p_i = f_k(z_i) / sum_j f_k(z_j),  f_k(z) = sum_{m=0..k} z^m / m!  (k even, so f_k > 0). */
export function taylor_softmax(x, order = 2, temperature = 1) {
  const z = scaled(x, temperature);
  return normalize(taylorF(z, check_order(order)));
}

/** Indices of z by decreasing value, ties by index (numpy's stable argsort of -z). */
function orderDescending(z) {
  return Array.from(z.keys()).sort((i, j) => (z[j] > z[i] ? 1 : z[j] < z[i] ? -1 : i - j));
}

/** Omega of top-k / top-p softmax: the k largest z (ties by index); given top_p, the fewest whose softmax mass
 * reaches top_p. */
function keptClasses(z, k, top_p) {
  check_k_or_top_p(k, top_p);
  const order = orderDescending(z);
  if (top_p !== null && top_p !== undefined) {
    const p = softmax(z);
    const mass = cumsum(order.map((i) => p[i]));
    const wanted = check_top_p(top_p);
    let first = 0;  // numpy searchsorted (left): the first index with mass >= top_p
    while (first < mass.length && mass[first] < wanted) first++;
    k = Math.min(first + 1, z.length);
  }
  return order.slice(0, check_k(k, z.length));
}

/** p_i = exp(z_i) / sum_{j in Omega} exp(z_j) on Omega = top-k (or the top-p nucleus) of z, else 0. */
export function sparse_softmax(x, k = null, top_p = null, temperature = 1) {
  const z = scaled(x, temperature);
  const omega = keptClasses(z, k, top_p);
  const p = new Float64Array(z.length);
  const kept = softmax(omega.map((i) => z[i]));
  omega.forEach((i, j) => { p[i] = kept[j]; });
  return p;
}

/** p = relu(z - tau),  tau = (sum_{j<=K} z_(j) - 1) / K,  K = #{k : z_(k) > (sum_{j<=k} z_(j) - 1) / k}. */
export function sparsemax(x, temperature = 1) {
  const z = shifted(scaled(x, temperature));
  const tau = sparsemaxThreshold(z);
  return tau !== null ? z.map((v) => Math.max(v - tau, 0)) : new Float64Array(z.length);
}

/** sparsemax's tau (above); null where no entry is finite. */
function sparsemaxThreshold(z) {
  const zSorted = sortedDescending(z);
  const tau = cumsum(zSorted).map((s, i) => (s - 1) / (i + 1));
  let support = 0;
  for (let i = 0; i < z.length; i++) if (zSorted[i] > tau[i]) support++;
  return support ? tau[support - 1] : null;
}

/** p = relu(z - tau)^2, z = x/2T, tau = mu_k - sqrt(1/k - sigma_k^2) for the k with z_(k) >= tau_k >= z_(k+1). */
export function entmax15(x, temperature = 1) {
  const z = shifted(scaled(x, temperature).map((v) => v / 2));
  const tau = entmax15Threshold(z);
  return tau !== null ? z.map((v) => Math.max(v - tau, 0) ** 2) : new Float64Array(z.length);
}

/** 1.5-entmax's tau (above) of z = x / 2T shifted; null where no entry is finite. */
function entmax15Threshold(z) {
  const zSorted = sortedDescending(z.filter((v) => v > -Infinity));
  const m = zSorted.length;
  if (!m) return null;
  const sums = cumsum(zSorted), squares = cumsum(zSorted.map((v) => v ** 2));
  let bestMiss = Infinity, bestTau = 0;
  for (let i = 0; i < m; i++) {
    const k = i + 1, mu = sums[i] / k;
    const sigma2 = squares[i] / k - mu ** 2;
    const tau = mu - Math.sqrt(Math.max(1 / k - sigma2, 0));
    const next = i + 1 < m ? zSorted[i + 1] : -Infinity;
    const miss = Math.max(tau - zSorted[i], 0) + Math.max(next - tau, 0);  // 0 inside the bracket
    if (miss < bestMiss) [bestMiss, bestTau] = [miss, tau];
  }
  return bestTau;
}

/** exp_alpha(u) = [1 + (alpha-1) u]_+^(1/(alpha-1)) = exp(log1p((alpha-1) u) / (alpha-1)); e^u at alpha = 1. */
export function exp_alpha(u, alpha) {
  if (alpha === 1) return Math.exp(u);
  const w = (alpha - 1) * u;
  return w > -1 ? Math.exp(Math.log1p(Math.max(w, -1)) / (alpha - 1)) : 0;
}

/** p_i = exp_alpha(z_i - lam),  z = x / T,  lam by bisection so that sum p = 1 (alpha 1: softmax, 2: sparsemax). */
export function entmax(x, alpha = 1.5, temperature = 1, n_iter = 80) {
  alpha = check_alpha(alpha);
  if (alpha === 1) return softmax(x, temperature);
  if (alpha === 2) return sparsemax(x, temperature);
  const z = shifted(scaled(x, temperature));
  const lam = entmaxLambda(z, alpha, n_iter);
  if (lam === null) return new Float64Array(z.length);
  return normalize(z.map((v) => (Number.isFinite(v) ? exp_alpha(v - lam, alpha) : 0)));
}

/** alpha-entmax's lam (above) of z shifted to max 0, n_iter bisection steps; null where no entry is finite. */
function entmaxLambda(z, alpha, n_iter = 80) {
  const live = z.filter((v) => Number.isFinite(v));
  if (!live.length) return null;
  // max z = 0: mass(0) >= 1 (the max alone), mass(hi) <= 1 (n entries at most exp_alpha(-hi) = 1/n each)
  let lo = 0, hi = (1 - live.length ** (1 - alpha)) / (alpha - 1);
  for (let i = 0; i < check_positive_int("n_iter", n_iter); i++) {
    const mid = (lo + hi) / 2;
    if (sum(live.map((v) => exp_alpha(v - mid, alpha))) >= 1) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** p_i = P[argmax(z + eps) = i] = int pdf(t - z_i) prod_{j != i} Phi(t - z_j) dt  (gumbel noise: softmax). */
export function perturbmax(x, noise = "gumbel", temperature = 1, n_points = null) {
  const z = scaled(x, temperature);
  const { pdf, cdf } = NOISE[check_noise(noise)];
  const live = [...z.keys()].filter((i) => z[i] > -Infinity);
  const zl = live.map((i) => z[i]);
  const [t, w] = quadrature(noise, zl, n_points);
  const n = zl.length, p = new Float64Array(z.length);
  const acc = new Float64Array(n), phi = new Float64Array(n), before = new Float64Array(n + 1), after = new Float64Array(n + 1);
  for (let q = 0; q < t.length; q++) {
    for (let j = 0; j < n; j++) phi[j] = cdf(t[q] - zl[j]);
    before[0] = 1;  // prod_{j < i} and prod_{j > i} of Phi: the product over j != i without dividing
    for (let j = 0; j < n; j++) before[j + 1] = before[j] * phi[j];
    after[n] = 1;
    for (let j = n - 1; j >= 0; j--) after[j] = after[j + 1] * phi[j];
    for (let i = 0; i < n; i++) acc[i] += pdf(t[q] - zl[i]) * before[i] * after[i + 1] * w[q];
  }
  live.forEach((i, j) => { p[i] = acc[j]; });
  return p;
}

/** p = softmax(s (x - m e_t) / T): the target cosine x_t gives up a margin m before scaling by s. */
export function am_softmax(x, target, margin = 0.35, scale = 30, temperature = 1) {
  x = vector(x);
  const t = checkTarget(target, x.length);
  const s = check_positive("scale", scale), m = check_nonnegative("margin", margin);
  return softmax(x.map((v, i) => s * (v - (i === t ? m : 0))), temperature);
}

// ---------------------------------------------------------------- losses (one vector, target t)

/** L = -log softmax(z)_t = logsumexp(z) - z_t,  z = x / T  (or z = beta x). */
export function cross_entropy(x, target, temperature = 1, beta = null) {
  const z = shifted(scaled(x, temperature, beta));
  return logsumexp(z) - z[checkTarget(target, z.length)];
}

/** L = log sum_{i in top-k} exp(z_i) - z_t,  z = x / T. */
export function sparse_softmax_loss(x, target, k, temperature = 1) {
  const z = shifted(scaled(x, temperature));
  const topK = sortedDescending(z).slice(0, check_k(k, z.length));
  return logsumexp(topK) - z[checkTarget(target, z.length)];
}

/** L = 1/2 - z_t + sum_{i in S} (z_i^2 - tau^2) / 2,  z = x / T,  S = support of sparsemax(z), tau its threshold. */
export function sparsemax_loss(x, target, temperature = 1) {
  const z = shifted(scaled(x, temperature));
  const t = checkTarget(target, z.length);
  const p = sparsemax(z);
  const s = z.filter((_, i) => p[i] > 0);
  const tau = (sum(s) - 1) / s.length;
  return 0.5 - z[t] + sum(s.map((v) => v ** 2 - tau ** 2)) / 2;
}

/** L = <p - e_t, z> + H_alpha(p), z = x / T, p = entmax_alpha(z), H_alpha(p) = (1 - sum p^alpha) / (alpha (alpha - 1)). */
export function entmax_loss(x, target, alpha = 1.5, temperature = 1) {
  const z = shifted(scaled(x, temperature));
  const t = checkTarget(target, z.length);
  const full = entmax(z, alpha);
  const keep = [...z.keys()].filter((i) => full[i] > 0);
  const p = keep.map((i) => full[i]), zs = keep.map((i) => z[i]);
  const entropy = alpha === 1 ? -sum(p.map((v) => v * Math.log(v))) : (1 - sum(p.map((v) => v ** alpha))) / (alpha * (alpha - 1));
  return sum(p.map((v, i) => v * zs[i])) - z[t] + entropy;
}

/** L = -log taylor_softmax(x, order, T)_t. */
export function taylor_cross_entropy(x, target, order = 2, temperature = 1) {
  const p = taylor_softmax(x, order, temperature);
  return -Math.log(p[checkTarget(target, p.length)]);
}

/** L = -log am_softmax(c, t)_t. */
export function am_softmax_loss(cosines, target, margin = 0.35, scale = 30, temperature = 1) {
  const c = vector(cosines);
  const t = checkTarget(target, c.length);
  const s = check_positive("scale", scale), m = check_nonnegative("margin", margin);
  return cross_entropy(c.map((v, i) => s * (v - (i === t ? m : 0))), target, temperature);
}

/** L = -softmax(z)_t,  z = x / T (or beta x)  (minus a smooth accuracy). */
export function neg_prob_loss(x, target, temperature = 1, beta = null) {
  const p = softmax(x, temperature, beta);
  return -p[checkTarget(target, p.length)];
}

// ---------------------------------------------------------------- the registry as the views use it

/** Each mapping's reference call from the keyword arguments the explorer keeps (explorer.state). */
export const MAPPINGS = {
  softmax: (x, kw) => softmax(x, kw.temperature ?? 1, kw.beta ?? null),
  taylor_softmax: (x, kw) => taylor_softmax(x, kw.order ?? 2, kw.temperature ?? 1),
  sparse_softmax: (x, kw) => sparse_softmax(x, kw.top_p != null ? null : kw.k ?? 3, kw.top_p ?? null, kw.temperature ?? 1),
  sparsemax: (x, kw) => sparsemax(x, kw.temperature ?? 1),
  entmax15: (x, kw) => entmax15(x, kw.temperature ?? 1),
  entmax: (x, kw) => entmax(x, kw.alpha ?? 1.5, kw.temperature ?? 1),
  perturbmax: (x, kw) => perturbmax(x, kw.noise ?? "gumbel", kw.temperature ?? 1),
  am_softmax: (x, kw, target = 0) => am_softmax(x, target, kw.margin ?? 0.35, kw.scale ?? 30, kw.temperature ?? 1),
};

function mapping(name) {
  if (!MAPPINGS[name]) throw new ValueError(`mapping must be one of ${Object.keys(MAPPINGS).join(", ")}; got ${repr(name)}`);
  return MAPPINGS[name];
}

/** p = mapping(x) with the explorer's keyword arguments (``target``: the margin mappings' class). */
export function probabilities(name, x, kw = {}, target = 0) {
  return mapping(name)(x, kw, target);
}

/** Where the mapping's p is > 0 in exact arithmetic, from its definition, not from the float p (explorer.compute's
 * positive_exactly): at every finite logit for the dense mappings (softmax, Taylor, AM-softmax whatever its target,
 * perturb-max with unbounded noise, alpha-entmax with alpha <= 1); on Omega for top-k / top-p softmax; where
 * z_i > max z - 1 for perturb-max with uniform noise (z = x / T); where (alpha - 1) z - tau > 1e-9 for sparsemax
 * (alpha 2), 1.5-entmax and alpha-entmax with alpha > 1 (z = x / T shifted to max 0, tau their threshold: within
 * 1e-9 of it counts as off the support). A p of 0 where this is true is an underflow, the other zeros are exact. */
export function positive_exactly(name, x, kw = {}) {
  mapping(name);
  x = vector(x);
  const live = Array.from(x, (v) => v > -Infinity), temperature = kw.temperature ?? 1;
  if (name === "sparse_softmax") {
    const inside = live.map(() => false);
    for (const i of keptClasses(scaled(x, temperature), kw.top_p != null ? null : kw.k ?? 3, kw.top_p ?? null)) inside[i] = live[i];
    return inside;
  }
  if (name === "perturbmax" && check_noise(kw.noise ?? "gumbel") === "uniform") {  // bounded noise U[0, 1]
    const z = scaled(x, temperature), top = max(z);
    return Array.from(z, (v) => v > top - 1);
  }
  const alpha = { sparsemax: 2, entmax15: 1.5 }[name] ?? (name === "entmax" ? check_alpha(kw.alpha ?? 1.5) : 1);
  if (alpha <= 1) return live;
  const z = shifted(scaled(x, temperature));
  let tau;
  if (name === "entmax15") tau = entmax15Threshold(z.map((v) => v / 2));
  else if (alpha === 2) tau = sparsemaxThreshold(z);
  else {
    const lam = entmaxLambda(z, alpha);  // p = exp_alpha(z - lam) = [(alpha - 1) z - tau]_+^(1 / (alpha - 1))
    tau = lam === null ? null : (alpha - 1) * lam - 1;
  }
  return Array.from(z, (v) => tau !== null && (alpha - 1) * v - tau > 1e-9);
}

/** The loss the Compare table and the loss plane use for a mapping (probcore.registry's ``loss``),
 * null where there is none (perturb-max; sparse softmax given top_p: its loss needs k). */
export const LOSSES = {
  softmax: (x, t, kw) => cross_entropy(x, t, kw.temperature ?? 1, kw.beta ?? null),
  taylor_softmax: (x, t, kw) => taylor_cross_entropy(x, t, kw.order ?? 2, kw.temperature ?? 1),
  sparse_softmax: (x, t, kw) => (kw.top_p != null ? null : sparse_softmax_loss(x, t, kw.k ?? 3, kw.temperature ?? 1)),
  sparsemax: (x, t, kw) => sparsemax_loss(x, t, kw.temperature ?? 1),
  entmax15: (x, t, kw) => entmax_loss(x, t, 1.5, kw.temperature ?? 1),
  entmax: (x, t, kw) => entmax_loss(x, t, kw.alpha ?? 1.5, kw.temperature ?? 1),
  am_softmax: (x, t, kw) => am_softmax_loss(x, t, kw.margin ?? 0.35, kw.scale ?? 30, kw.temperature ?? 1),
};

/** dz/dx: the factor the logits are multiplied by before the mapping (1/T, beta, or s/T for AM-softmax). */
function slope(name, kw) {
  if (kw.beta != null) return kw.beta;
  const c = 1 / (kw.temperature ?? 1);
  return name === "am_softmax" ? c * (kw.scale ?? 30) : c;
}

const GRAM_ALPHA = { softmax: 1, sparse_softmax: 1, am_softmax: 1, sparsemax: 2, entmax15: 1.5 };

/** J[i][j] = dp_i/dx_j (probcore.jacobian): c (diag(s) - s s^T / sum s), s = p^(2 - alpha) on the support
 * (softmax-like: s = p; sparsemax: s = 1[p > 0]); Taylor: c (diag(w) - p w^T), w_i = f_{k-1}(z_i) / sum_j f_k(z_j).
 * Perturb-max has no closed form: null (the server's autograd Jacobian is shown). */
export function jacobian(name, x, kw = {}, target = 0) {
  if (name === "perturbmax") return null;
  const p = probabilities(name, x, kw, target), n = p.length, c = slope(name, kw);
  const J = Array.from({ length: n }, () => new Float64Array(n));
  if (name === "taylor_softmax") {
    const z = scaled(x, kw.temperature ?? 1), order = kw.order ?? 2;
    const total = sum(taylorF(z, order)) || 1;
    const w = taylorF(z, order - 1).map((v) => v / total);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) J[i][j] = c * ((i === j ? w[i] : 0) - p[i] * w[j]);
    return J;
  }
  const alpha = name === "entmax" ? kw.alpha ?? 1.5 : GRAM_ALPHA[name];
  const s = p.map((v) => (alpha === 1 ? v : v > 0 ? (alpha === 2 ? 1 : v ** (2 - alpha)) : 0));
  const total = sum(s) || 1;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) J[i][j] = c * ((i === j ? s[i] : 0) - (s[i] * s[j]) / total);
  return J;
}

/** dL/dx of the mapping's loss: c (q - e_t) with q the mapping's p (top-k softmax, sparsemax, entmax at z,
 * AM-softmax), c = dz/dx; Taylor: -J[t] / p_t. null where the mapping has no loss. */
export function loss_grad(name, x, target, kw = {}) {
  if (!LOSSES[name] || LOSSES[name](x, target, kw) === null) return null;
  if (name === "taylor_softmax") {
    const J = jacobian(name, x, kw), p = probabilities(name, x, kw);
    return J[target].map((v) => -v / p[target]);
  }
  const q = name === "sparse_softmax" ? sparse_softmax(x, kw.k ?? 3, null, kw.temperature ?? 1) : probabilities(name, x, kw, target);
  const c = slope(name, kw);
  return q.map((v, i) => c * (v - (i === target ? 1 : 0)));
}

/** The loss over the plane x = (u, v, 0), u, v in linspace(-radius, radius, m), as views.loss_landscape.compute.loss_surface:
 * {loss, du, dv} arrays [v][u] with du = g0 - g2, dv = g1 - g2, g = dL/dx. */
export function loss_surface(name, kw, target, radius, m) {
  const grid = linspace(-radius, radius, m);
  const loss = [], du = [], dv = [];
  for (const v of grid) {
    const row = [], rowU = [], rowV = [];
    for (const u of grid) {
      const x = [u, v, 0];
      const g = loss_grad(name, x, target, kw);
      row.push(LOSSES[name](x, target, kw));
      rowU.push(g[0] - g[2]);
      rowV.push(g[1] - g[2]);
    }
    loss.push(row); du.push(rowU); dv.push(rowV);
  }
  return { loss, du, dv };
}

/** numpy.linspace(lo, hi, m): lo + i (hi - lo) / (m - 1), the last point exactly hi. */
export function linspace(lo, hi, m) {
  const step = (hi - lo) / (m - 1);
  return Array.from({ length: m }, (_, i) => (i === m - 1 ? hi : lo + i * step));
}

/** numpy.geomspace(lo, hi, m): 10^linspace(log10 lo, log10 hi, m) with the ends exact. */
export function geomspace(lo, hi, m) {
  const out = linspace(Math.log10(lo), Math.log10(hi), m).map((e) => 10 ** e);
  out[0] = lo;
  out[m - 1] = hi;
  return out;
}

/** explorer.compute.TEMPERATURES and ALPHAS: the grids of the Sweeps page. */
export const TEMPERATURES = geomspace(0.02, 50, 61);
export const ALPHAS = [...linspace(1, 2, 21), ...geomspace(2, 64, 26).slice(1)];

/** Rows p = mapping(x / T) (its own temperature set to 1) for T in TEMPERATURES. */
export function temperature_sweep(name, x, kw = {}, target = 0) {
  const one = { ...kw, temperature: 1 };
  return TEMPERATURES.map((T) => probabilities(name, Array.from(x, (v) => v / T), one, target));
}

/** Rows p = mapping(x; alpha) for alpha in ALPHAS (the mappings with an alpha: entmax). */
export function alpha_sweep(name, x, kw = {}, target = 0) {
  return ALPHAS.map((alpha) => probabilities(name, x, { ...kw, alpha }, target));
}

/** Orthonormal coordinates of a point of the plane sum = 1 (views.simplex.figures._plane): (q - 1/3) . b with
 * b = (1, -1, 0) / sqrt 2 and (1, 1, -2) / sqrt 6; the centre of the simplex is (0, 0). */
export function plane_coordinates(q) {
  const d = Array.from(q, (v) => v - 1 / 3);
  return [(d[0] - d[1]) / Math.sqrt(2), (d[0] + d[1] - 2 * d[2]) / Math.sqrt(6)];
}

/** The logits moved onto the plane sum = 1 (x - (sum x - 1) / 3: the same p for a shift-invariant mapping), in
 * plane_coordinates. */
export function logits_on_plane(x) {
  const shift = (x[0] + x[1] + x[2] - 1) / 3;
  return plane_coordinates([x[0] - shift, x[1] - shift, x[2] - shift]);
}
