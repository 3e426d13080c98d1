"""The explorer's controls, their URL state, and the parsing of user input.

Every control is an :class:`Option` whose key is both its ``st.session_state`` key and its query
parameter. The URL is read when a session starts (``_load_url``; a page's own controls take
their value from that same first URL when the page first draws them, :func:`page_option`): each
value is parsed and checked here, never handed to a widget unchecked, and a bad one gives an
inline message and leaves the default. After each run (of the app, or of a fragment alone)
:func:`sync_url` writes the non-default values back, so the address reproduces the view.

Where they are drawn: :func:`sidebar` (every page) holds language, presentation mode and reset;
a page that uses the logits calls :func:`controls` first in the fragment that draws what they
change (preset, n, seed, the logits text, one slider per logit, the target class), and a page
that draws the mappings calls :func:`mapping_controls` above it (the mappings shown, then the
parameters of one mapping at a time). :func:`controls` returns :class:`Controls`, the checked
values: logits, the selected mappings and each one's keyword arguments (checked by the registry
and by a real call; a bad value falls back to the last valid one, else the default, with a
message naming the mapping). A widget has a key of its own (``w_`` + key, :func:`_bind`); the
value stays under the option key for every page.

URL query parameters (the same names as before issue 10; links made then still open the same
view, except that α-entmax's default α is now EXPLORER_DEFAULTS["alpha"]). A value equal to its
default is left out of the URL; a path selects the page (the URL paths of views/registry.py).

- Session-wide: ``lang`` (en | zh), ``present`` (0 | 1).
- Logits (Compare, Simplex, Jacobian, Loss landscape, Sweeps, Perturb-max, Losses, Smooth max, Sparse
  from exp): ``logits`` (numbers separated by commas or spaces, 2 to 1000 of them, |x| <= 1e4;
  written only with the custom preset), ``preset`` (custom | uniform | one_dominant | two_tied | long_tail | random), ``n``
  (classes of a preset, 2..1000; written only with a preset), ``seed`` (0..2^31-1), ``target``
  (class of the losses, 0..n-1).
- Mappings (the core pages): ``show`` (comma-separated names of ``probcore.registry.MAPPINGS``),
  and one parameter per distinct registry parameter name, shared by the mappings that have it:
  ``temperature``, ``beta``, ``order``, ``k``, ``top_p``, ``alpha``, ``noise``, ``hard``,
  ``margin``, ``scale`` (checked by the registry: its ranges, not hard-coded here; ``none`` or
  empty = not given, where None is allowed).
- A page's own controls (:func:`page_option`, :func:`page_slider`), named after the page: declared
  once, with types, ranges and defaults, in the page's entry of views/registry.py.
- Lessons (explorer/classroom/lesson_bar.py): ``lesson``, ``step``, ``room`` (and ``teacher``, read once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np
import streamlit as st

from explorer import compute
from explorer.i18n import LANGS, forget_language, mapping_label, param_help, param_label, t
from explorer.session.keys import SessionKey
from probcore.check import parse_vector
from probcore.registry import MAPPINGS

N_MIN, N_MAX = 2, 1000
SLIDER_MAX_N = 12  # per-logit sliders up to this n
LOGITS_OPEN = "logits_open"  # whether the Logits expander is open (its key): a live release reads it
MAPPINGS_OPEN = "mappings_open"  # whether the Mappings expander is open (its key)
SLIDER_STEP = 0.05
TOP_VIEW = 50  # charts show the top 50 classes beyond this n
LOGIT_LIMIT = 1e4
SEED_MAX = 2**31 - 1
INT_LIMIT = SEED_MAX  # any integer from the URL
DEFAULT_LOGITS = "1.2, 0.3, -0.5"
PRESETS = ("custom", "uniform", "one_dominant", "two_tied", "long_tail", "random")
PRESET_LABELS = {
    "custom": "preset.custom",
    "uniform": "preset.uniform",
    "one_dominant": "preset.one_dominant",
    "two_tied": "preset.two_tied",
    "long_tail": "preset.long_tail",
    "random": "preset.random",
}
MESSAGE_CHARS = 300


class Option(NamedTuple):
    """A control kept in ``st.session_state[key]`` and in the query parameter ``key``."""

    key: str
    kind: str  # "float" | "int" | "choice" | "bool" | "text" | "multi"
    default: Any
    choices: tuple = ()
    low: float | None = None  # bounds checked when read from the URL (ints and floats)
    high: float | None = None


EXPLORER_DEFAULTS = {"alpha": 1.25}  # α-entmax beside 1.5-entmax: its default draws something new


def _param_options() -> dict[str, Option]:
    """One option per distinct registry parameter name (first definition wins), with the
    explorer's own defaults (EXPLORER_DEFAULTS, checked by the registry at import)."""
    options: dict[str, Option] = {}
    for mapping in MAPPINGS.values():
        for p in mapping.params:
            default = EXPLORER_DEFAULTS.get(p.name, p.default)
            if p.name in EXPLORER_DEFAULTS:
                mapping.validate(**{p.name: default})
            default = float(default) if p.kind == "float" and default is not None else default
            options.setdefault(p.name, Option(p.name, p.kind, default, tuple(p.choices)))
    return options


PARAM_OPTIONS = _param_options()
DEFAULT_SHOWN = tuple(name for name, m in MAPPINGS.items() if not m.stochastic)
OPTIONS: dict[str, Option] = {
    "lang": Option("lang", "choice", LANGS[0], LANGS),
    "present": Option("present", "bool", False),
    "preset": Option("preset", "choice", "custom", PRESETS),
    "n": Option("n", "int", 3, low=N_MIN, high=N_MAX),
    "seed": Option("seed", "int", 0, low=0, high=SEED_MAX),
    "logits": Option("logits", "text", DEFAULT_LOGITS),
    "show": Option("show", "multi", DEFAULT_SHOWN, tuple(MAPPINGS)),
    "target": Option("target", "int", 0, low=0, high=N_MAX - 1),
    **PARAM_OPTIONS,
}


# ---------------------------------------------------------------- parsing (never eval) ----


def quote(text: object, limit: int = 40) -> str:
    """User text for a message: shortened, and safe to show as Markdown (no links, images, html)."""
    s = str(text)
    s = s if len(s) <= limit else s[:limit] + "…"
    return "'" + s + "'"


def plain(message: str) -> str:
    """A message rendered literally by st.error/st.warning (every ASCII punctuation escaped)."""
    message = message if len(message) <= MESSAGE_CHARS else message[:MESSAGE_CHARS] + "…"
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", message)


def parse_logits(text: str) -> np.ndarray:
    """Logits from text such as '1.2, 0.3, -0.5' or '1.2 0.3 -0.5' (commas, semicolons, spaces,
    one pair of brackets). ValueError for anything else, NaN/inf, |x| > LOGIT_LIMIT or n outside
    [N_MIN, N_MAX]."""
    x = parse_vector(str(text).replace("−", "-"), name="logits")
    if not (N_MIN <= len(x) <= N_MAX):
        raise ValueError(t("err.n_range", n=len(x), low=N_MIN, high=N_MAX))
    if np.abs(x).max() > LOGIT_LIMIT:
        raise ValueError(t("err.logit_limit", limit=f"{LOGIT_LIMIT:g}"))
    return x


def format_logits(x: np.ndarray) -> str:
    return ", ".join(f"{v:.6g}" for v in x)


def preset_logits(preset: str, n: int, seed: int) -> np.ndarray:
    """Logits of a preset: uniform (all 0), one dominant (3, 0, ..., 0), two tied (2, 2, then
    0.5 down to -1), long tail (3 - 1.5 log(i + 1)), random (N(0, 1.5^2) from ``seed``)."""
    i = np.arange(n)
    if preset == "uniform":
        x = np.zeros(n)
    elif preset == "one_dominant":
        x = np.where(i == 0, 3.0, 0.0)
    elif preset == "two_tied":
        x = np.concatenate([[2.0, 2.0], np.linspace(0.5, -1.0, n - 2)])
    elif preset == "long_tail":
        x = 3.0 - 1.5 * np.log(i + 1.0)
    elif preset == "random":
        x = np.random.default_rng(seed).normal(0.0, 1.5, n)
    else:
        raise ValueError(t("err.choice", key="preset", value=quote(preset), choices=", ".join(PRESETS)))
    return np.round(x, 2) + 0.0  # + 0.0 turns -0.0 into 0.0


def _int(token: str, key: str) -> int:
    if not re.fullmatch(r"[+-]?\d{1,10}", token.strip()) or abs(int(token)) > INT_LIMIT:
        raise ValueError(t("err.int", key=key, value=quote(token)))
    return int(token)


def parse_option(option: Option, raw: list[str]) -> Any:
    """The value of ``option`` from its query parameter (all its occurrences); ValueError
    naming the parameter, the bad value and what is allowed."""
    token = raw[-1] if raw else ""
    key = option.key
    if option.kind == "text":
        return token
    if option.kind == "multi":
        names = [s.strip() for r in raw for s in r.split(",") if s.strip()]
        bad = [s for s in names if s not in option.choices]
        if bad:
            raise ValueError(t("err.choice", key=key, value=quote(", ".join(bad)), choices=", ".join(option.choices)))
        return tuple(dict.fromkeys(names))
    if option.default is None and token.lower() in ("", "none"):
        return None
    if option.kind == "choice":
        match = [c for c in option.choices if str(c) == token]
        if not match:
            raise ValueError(t("err.choice", key=key, value=quote(token), choices=", ".join(map(str, option.choices))))
        return match[0]
    if option.kind == "bool":
        if token.lower() not in ("1", "0", "true", "false"):
            raise ValueError(t("err.bool", key=key, value=quote(token)))
        return token.lower() in ("1", "true")
    if option.kind == "int":
        value = _int(token, key)
    else:
        try:
            value = float(token)
        except ValueError:
            raise ValueError(t("err.float", key=key, value=quote(token))) from None
        if not np.isfinite(value):
            raise ValueError(t("err.float", key=key, value=quote(token)))
    if (option.low is not None and value < option.low) or (option.high is not None and value > option.high):
        raise ValueError(
            t(
                "err.range",
                key=key,
                value=quote(token),
                low=f"{-np.inf if option.low is None else option.low:g}",
                high=f"{np.inf if option.high is None else option.high:g}",
            )
        )
    return value


def serialize(option: Option, value: Any) -> str:
    if option.kind == "multi":
        return ",".join(value)
    if option.kind == "bool":
        return "1" if value else "0"
    if value is None:
        return "none"
    if option.kind == "float":
        return f"{value:.10g}"
    return str(value)


# ---------------------------------------------------------------- URL state ----


def _load_url(options: dict[str, Option]) -> None:
    """Once per session: query parameters -> session state, checked; bad ones give a message."""
    ss = st.session_state
    url = {k: st.query_params.get_all(k) for k in st.query_params}
    ss["_url0"] = url
    notes = []
    for key, raw in url.items():
        if key in options:
            try:
                ss[key] = parse_option(options[key], raw)
            except ValueError as err:
                notes.append(t("msg.url_param", key=quote(key), error=err))
    forget_language()  # the URL may have set it
    ss["_url_notes"] = notes


def opened_url() -> dict[str, list[str]]:
    """The query parameters the session opened with (each key's values), read once by
    :func:`_load_url`; empty before."""
    return st.session_state.get("_url0", {})


def forget_last_valid_kwargs() -> None:
    """Forget every mapping's last valid keyword arguments (the fallback of bad input)."""
    st.session_state["_last_kwargs"] = {}


def page_option(option: Option, render: Callable[[str], Any]) -> Any:
    """A page-local control kept in the URL while its page is shown: seeded once from the URL
    the session opened with, kept for the session. ``render(key)`` draws the widget (with
    ``persist_state="session"``) and returns its value."""
    ss = st.session_state
    if option.key not in ss:
        raw = ss.get("_url0", {}).get(option.key)
        ss[option.key] = option.default
        if raw is not None:
            try:
                ss[option.key] = parse_option(option, raw)
            except ValueError as err:
                st.warning(plain(t("msg.url_param", key=quote(option.key), error=err)))
    ss.setdefault("_page_options", {})[option.key] = option
    return render(option.key)


def slider(label: str, low, high, key: str, **kwargs):
    """A single-value slider over [low, high] whose value lives in the session state under ``key``
    (``persist_state="session"``). Its ``value`` is ``low``, what Streamlit takes for a single slider
    given none (the same element and id: the key and the bounds are its identity); given none,
    Streamlit would first build the session state's whole filtered view to learn whether the slider
    is a range (0.3-0.9 ms with the ~80 keys of a session that has seen every page, by the load)."""
    return st.slider(label, low, high, low, key=key, persist_state="session", **kwargs)


def page_slider(option: Option, label: str, step: float) -> float:
    """A page-local slider over the option's [low, high] kept in the URL (:func:`page_option`)."""
    return page_option(option, lambda k: slider(label, option.low, option.high, k, step=step))


_ABSENT = object()  # a key not in the session state


def view_params() -> dict[str, str]:
    """Every non-default control registered so far in this run, as the URL writes it (logits only
    for the custom preset, n only for the other presets)."""
    ss = st.session_state
    options = {**OPTIONS, **ss.get("_page_options", {})}
    custom = ss.get("preset") == "custom"
    wanted = {}
    for key, option in options.items():
        if (key == "logits" and not custom) or (key == "n" and custom):
            continue
        value = ss.get(key, _ABSENT)  # one look-up of the session state, not two (`in`, then `[]`)
        if value is _ABSENT:
            continue
        if value != option.default and not (option.kind == "multi" and tuple(value) == tuple(option.default)):
            wanted[key] = serialize(option, value)
    return wanted


def view_values() -> dict[str, Any]:
    """:func:`view_params`, plus the URL's keys whose control this run has not drawn yet (a page's
    control below a chart) with their session values (the URL's text, unchecked, before the control
    was ever drawn): the whole view, while a page draws."""
    ss = st.session_state
    values: dict[str, Any] = dict(view_params())
    registered = {*OPTIONS, *ss.get("_page_options", {})}
    for name in list(st.query_params):
        if name not in registered:
            value = ss.get(name, _ABSENT)
            values[name] = st.query_params[name] if value is _ABSENT else value
    return values


def sync_url() -> None:
    """Write every non-default control of this run to the URL (:func:`view_params`); no message
    when nothing changed."""
    wanted = view_params()
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def _reset() -> None:
    ss = st.session_state
    for key, option in {**OPTIONS, **ss.get("_page_options", {})}.items():
        ss[key] = option.default
    for key in [k for k in ss if k.startswith("x_")]:
        del ss[key]
    forget_last_valid_kwargs()
    forget_language()
    ss["_url_notes"] = []


# ---------------------------------------------------------------- controls ----


@dataclass(frozen=True)
class Controls:
    """The checked session-level controls every page reads."""

    logits: np.ndarray
    mappings: tuple[str, ...]  # selected, in registry order
    kwargs: dict[str, dict] = field(default_factory=dict)  # checked keyword arguments per mapping
    probs: dict[str, np.ndarray] = field(default_factory=dict)  # p per selected mapping at the logits
    target: int = 0
    seed: int = 0

    @property
    def n(self) -> int:
        return len(self.logits)

    @property
    def x(self) -> tuple:
        """Logits as a hashable tuple (cache key)."""
        return tuple(float(v) for v in self.logits)

    def kw(self, name: str) -> tuple:
        return compute.items(self.kwargs[name])

    @property
    def labels(self) -> dict[str, str]:
        return {name: mapping_label(name) for name in MAPPINGS}

    def probabilities(self) -> dict[str, np.ndarray]:
        """p of every selected mapping at the current logits (computed while checking the controls)."""
        return dict(self.probs)


def default_kwargs(name: str) -> dict:
    """The explorer's defaults of a mapping's parameters (the registry's, but EXPLORER_DEFAULTS)."""
    return {p.name: PARAM_OPTIONS[p.name].default for p in MAPPINGS[name].params}


def default_kw(name: str) -> tuple:
    """The explorer's defaults as the sorted items compute's functions take."""
    return compute.items(default_kwargs(name))


def _on_text() -> None:
    st.session_state["preset"] = "custom"


def _on_n() -> None:
    """n changed under the custom preset: keep the first logits, pad with zeros."""
    ss = st.session_state
    if ss["preset"] == "custom":
        x = ss["_last_x"]
        ss["logits"] = format_logits(np.concatenate([x, np.zeros(max(0, ss["n"] - len(x)))])[: ss["n"]])


def slider_position(value: float, bound: float) -> float:
    """Where a logit slider over [-bound, bound] with step SLIDER_STEP shows ``value``: the nearest
    point of its grid. The browser's slider can only hold grid points and may report that point
    back on any rerun, so the widget is given this point and the exact logit stays in the text."""
    return round(-bound + round((value + bound) / SLIDER_STEP) * SLIDER_STEP, 10)


def _on_slider(i: int, bound: float) -> None:
    """The user moved logit slider i: x_i takes its value, unless the value is just where the
    slider already showed x_i (a grid point near an exact value typed or linked), which is no move."""
    ss = st.session_state
    x = np.array(ss["_last_x"], dtype=float)
    if ss[f"x_{i}"] == slider_position(x[i], bound):
        return
    x[i] = ss[f"x_{i}"]
    ss["logits"] = format_logits(x)
    ss["preset"] = "custom"


def last_logits() -> np.ndarray | None:
    """The logits of the session's last run (None before its first)."""
    x = st.session_state.get("_last_x")
    return None if x is None else np.asarray(x, dtype=float)


def set_logits(x: np.ndarray) -> None:
    """A callback that puts new logits in the controls (custom preset), as if typed."""
    st.session_state["logits"] = format_logits(np.clip(x, -LOGIT_LIMIT, LOGIT_LIMIT))
    st.session_state["preset"] = "custom"


def current_logits() -> np.ndarray:
    """The logits the controls give now (a preset's, else the text's, else the last valid ones), for a
    callback: a live release may have moved them since the fragment that drew its button ran."""
    return _logits([], update=False)


def _logits(messages: list[str], update: bool) -> np.ndarray:
    """The logits the controls give (a preset's, else the text's, else the last valid ones);
    with ``update`` (before the logit widgets are drawn) the text and n follow them."""
    ss = st.session_state
    if ss["preset"] != "custom":
        x = preset_logits(ss["preset"], int(ss["n"]), int(ss["seed"]))
        if update:
            ss["logits"] = format_logits(x)
    else:
        try:
            x = parse_logits(ss["logits"])
        except ValueError as err:
            messages.append(t("msg.logits", error=err))
            x = ss.get("_last_x", parse_logits(DEFAULT_LOGITS))
    if update:
        ss["_last_x"] = x
        ss["n"] = len(x)
    return x


def _checked_kwargs(
    name: str,
    x: tuple[float, ...],
    target: int,
    seed: int,
    errors: dict[str, tuple[ValueError, list[str]]],
    values: dict[str, Any],
    last: dict[str, dict],
) -> tuple[dict, np.ndarray] | None:
    """The mapping's keyword arguments from the controls (empty fields left out) if the registry
    accepts them for this n and a call at the current logits gives finite probabilities. When
    they clash (k and top_p, temperature and beta) the ones equal to their default are left out
    first; then the last valid arguments, then the defaults; None if nothing works. A failure of
    the controls' values is noted in ``errors[message] = (error, mapping labels)``. ``values``: the
    session's value of each parameter option, ``last``: the last valid arguments of each mapping (both
    read from the session once per :func:`checked`). Returns (kwargs, p)."""
    mapping = MAPPINGS[name]
    defaults = default_kwargs(name)
    wanted = {p.name: values[p.name] for p in mapping.params if values[p.name] is not None}
    reduced = {k: v for k, v in wanted.items() if v != defaults[k]}
    failures: list[ValueError] = []  # errors of the candidates from the controls (wanted, reduced)
    for k, candidate in enumerate((wanted, reduced, last.get(name), defaults)):
        if candidate is None:
            continue
        try:
            kwargs = mapping.validate(n=len(x), **candidate)
            p = compute.probabilities(name, x, compute.items(kwargs), target, seed)
            if not np.all(np.isfinite(p)):
                raise ValueError(t("err.nonfinite"))
        except ValueError as err:
            if k < 2:
                failures.append(err)
            continue
        if k > 1:
            errors.setdefault(str(failures[-1]), (failures[-1], []))[1].append(mapping_label(name))
        last[name] = kwargs
        return kwargs, p
    errors.setdefault(str(failures[-1]), (failures[-1], []))[1].append(mapping_label(name))
    return None


def _bind(key: str, then: Callable[[], None] | None = None) -> dict:
    """Widget arguments that show the session value ``key`` and write a change back to it (then
    call ``then``). The widget has a key of its own (``w_`` + key), set from the value before
    each draw: the value outlives the pages that do not draw the widget, with no widget state
    to carry over. A tuple is given as the list the widget returns: else the next run sees the
    widget "changed" and its callback writes the old value back over one a callback just set
    (a lesson's Next)."""
    ss = st.session_state
    ss["w_" + key] = list(ss[key]) if isinstance(ss[key], tuple) else ss[key]

    def changed() -> None:
        ss[key] = ss["w_" + key]
        if then is not None:
            then()

    return dict(key="w_" + key, on_change=changed)


def _param_widget(option: Option) -> None:
    """The control of one registry parameter; number fields can be emptied (= not given)."""
    params = [(mapping_label(m.name), p) for m in MAPPINGS.values() for p in m.params if p.name == option.key]
    first = params[0][1]
    help_text = f"{param_help(option.key)}\n\n{t('sb.used_by', mappings=', '.join(label for label, _ in params))}"
    label = param_label(option.key)
    if option.kind == "choice":
        st.selectbox(label, option.choices, help=help_text, **_bind(option.key))
    elif option.kind == "bool":
        st.toggle(label, help=help_text, **_bind(option.key))
    elif option.kind == "int":
        st.number_input(label, value=None, step=int(first.step or 1), help=help_text, **_bind(option.key))
    else:
        st.number_input(
            label, value=None, step=float(first.step or 0.1), format="%g", help=help_text, **_bind(option.key)
        )


def runs_javascript() -> bool:
    """Whether this session is a browser's (its websocket request has headers), not AppTest's: there a
    live view draws (explorer.live) and closed expanders and popovers draw nothing. False where no
    Streamlit runtime exists (a bare run; AppTests run side by side in threads, where one's runtime
    can be gone while another asks: st.context raises RuntimeError then)."""
    try:
        return bool(st.context.headers)
    except RuntimeError:
        return False


def sidebar() -> None:
    """The session-wide controls (language, presentation mode, reset) in the sidebar; on a
    session's first run, every option of the URL is read (:func:`_load_url`)."""
    ss = st.session_state
    if "_url_notes" not in ss:
        _load_url(OPTIONS)
    for key, option in OPTIONS.items():
        ss.setdefault(key, option.default)
    ss["_page_options"] = {}
    sb = st.sidebar
    sb.selectbox(t("sb.lang"), LANGS, key="lang", format_func=lambda code: t({"en": "lang.en", "zh": "lang.zh"}[code]))
    sb.toggle(t("sb.present"), key="present", help=t("sb.present_help"))
    sb.button(t("sb.reset"), on_click=_reset, width="stretch")


def show_url_notes() -> None:
    """Inline messages about the query parameters the session opened with, once."""
    for message in st.session_state.get("_url_notes", []):
        st.error(plain(message), icon="⚠️")
    st.session_state["_url_notes"] = []


def _logit_controls(x: np.ndarray, target: bool) -> None:
    """Preset, n, seed, the logits as text (and the target class of the losses), then one slider
    per logit (n <= SLIDER_MAX_N). A slider holds the grid point nearest its logit
    (:func:`slider_position`); its label carries the exact value."""
    ss = st.session_state
    n = len(x)
    c1, c2, c3, c4, *c5 = st.columns([3, 2, 2, 6, 2] if target else [3, 2, 2, 8], vertical_alignment="bottom")
    c1.selectbox(t("sb.preset"), PRESETS, format_func=lambda p: t(PRESET_LABELS[p]), **_bind("preset"))
    c2.number_input(t("sb.n"), min_value=N_MIN, max_value=N_MAX, step=1, **_bind("n", _on_n))
    c3.number_input(t("sb.seed"), min_value=0, max_value=SEED_MAX, step=1, help=t("sb.seed_help"), **_bind("seed"))
    c4.text_input(t("sb.logits_text"), help=t("sb.logits_help"), **_bind("logits", _on_text))
    if target:
        c5[0].number_input(
            t("sb.target"), min_value=0, max_value=n - 1, step=1, help=t("sb.target_help"), **_bind("target")
        )
    if n > SLIDER_MAX_N:
        st.caption(t("sb.no_sliders", n=n, top=SLIDER_MAX_N))
        return
    bound = float(max(10.0, np.ceil(np.abs(x).max())))
    columns = st.columns(min(n, SLIDER_MAX_N // 2))
    for i in range(n):
        ss[f"x_{i}"] = slider_position(float(x[i]), bound)
        columns[i % len(columns)].slider(
            f"x{i} = {x[i]:.6g}", -bound, bound, step=SLIDER_STEP, key=f"x_{i}", on_change=_on_slider, args=(i, bound)
        )


def mapping_controls(expanded: bool = True) -> None:
    """The mappings shown and the parameters of one of them at a time (the others keep their
    values, in the session and in the URL). Drawn once per page run, outside the fragment of the
    logits: a change here reruns the page, a logit step does not redraw these. A page whose live
    view carries its own handles opens it closed (``expanded``: figure first); its widgets are drawn
    only while it is open."""
    ss = st.session_state
    box = st.expander(t("sb.mappings"), expanded=expanded, icon=":material/tune:", key=MAPPINGS_OPEN, on_change="rerun")
    if not box.open:  # drawn only while open (as the Logits expander)
        return
    with box:
        st.multiselect(t("sb.show"), tuple(MAPPINGS), format_func=mapping_label, **_bind("show"))
        tunable = [name for name in ss["show"] if MAPPINGS[name].params]
        if ss.get("params_of") not in tunable:
            ss["params_of"] = None
        picked = st.pills(t("ctl.params_of"), tunable, format_func=mapping_label, **_bind("params_of"))
        if picked is not None:
            params = MAPPINGS[picked].params
            for column, p in zip(st.columns(max(len(params), 3)), params):
                with column:
                    _param_widget(PARAM_OPTIONS[p.name])


CHECKED = SessionKey[tuple]("_checked")  # (inputs, update, Controls, messages) of this run's last checked()


def new_run() -> None:
    """At the start of a run (of the app, or of a fragment alone): no checked controls to reuse yet."""
    CHECKED.pop()


def _checked_inputs(mappings: bool) -> tuple:
    """What :func:`checked` reads from the session (within a run, its result is a function of these): the logit
    controls, the target, the mappings and their parameters, and the language of the messages."""
    ss = st.session_state
    return (
        mappings,
        ss["lang"],
        ss["preset"],
        ss["n"],
        ss["seed"],
        ss["logits"],
        ss["target"],
        tuple(ss["show"]),
        tuple(ss[key] for key in PARAM_OPTIONS),
    )


def checked(mappings: bool = True, update: bool = False) -> tuple[Controls, list[str]]:
    """The checked values of the controls (nothing drawn) and the messages about bad input; with
    ``update`` (only before the logit widgets are drawn) the controls take the values used. Asked again
    in the same run with the same inputs (:func:`_checked_inputs`; a page's second part after
    :func:`controls`) the same result comes back without checking every mapping again (one made
    with ``update`` serves either; one without serves only a call without)."""
    last_run = CHECKED.get()
    if last_run is not None and (last_run[1] or not update) and last_run[0] == _checked_inputs(mappings):
        return last_run[2], list(last_run[3])
    ctl, messages = _check(mappings, update)
    CHECKED.set((_checked_inputs(mappings), update, ctl, list(messages)))
    return ctl, messages


def _check(mappings: bool, update: bool) -> tuple[Controls, list[str]]:
    """:func:`checked`, computed."""
    ss = st.session_state
    messages: list[str] = []
    x = _logits(messages, update)
    n = len(x)
    target = int(ss["target"])
    if not 0 <= target < n:
        messages.append(t("msg.target", target=target, n=n))
        target = 0
        if update:
            ss["target"] = 0
    seed = int(ss["seed"])
    kwargs, probs = {}, {}
    if mappings:
        errors: dict[str, tuple[ValueError, list[str]]] = {}
        last = ss.setdefault("_last_kwargs", {})
        values = {key: ss[key] for key in PARAM_OPTIONS}  # read once, not once per mapping using it
        xs = tuple(map(float, x))  # the memo's key, built once, not once per mapping
        for name in ss["show"]:
            result = _checked_kwargs(name, xs, target, seed, errors, values, last)
            if result is None:
                messages.append(t("msg.mapping_dropped", mapping=mapping_label(name)))
            else:
                kwargs[name], probs[name] = result
        messages += [t("msg.param", error=err, mappings=", ".join(names)) for err, names in errors.values()]
    chosen = tuple(name for name in MAPPINGS if name in kwargs)
    return Controls(
        logits=x, mappings=chosen, kwargs=kwargs, probs={name: probs[name] for name in chosen}, target=target, seed=seed
    ), messages


def controls(mappings: bool = True, target: bool | None = None, expanded: bool = True) -> Controls:
    """Draw the logit controls where the page calls this (first thing in the fragment that draws
    what they change), the messages about bad input below them, and return the checked values
    (with ``mappings``: of the mappings chosen in :func:`mapping_controls`; the target class is
    drawn with the mappings unless ``target`` says otherwise). The expander opens closed where a
    live view carries the handles (``expanded``: figure first); its widgets are drawn only while it
    is open (:data:`LOGITS_OPEN`)."""
    ctl, messages = checked(mappings, update=True)
    box = st.expander(
        t("sb.logits"), expanded=expanded, icon=":material/linear_scale:", key=LOGITS_OPEN, on_change="rerun"
    )
    if box.open:  # drawn only while open: a closed one costs a run nothing and holds no stale value
        with box:
            _logit_controls(ctl.logits, target=mappings if target is None else target)
    for message in messages:
        st.error(plain(message), icon="⚠️")
    if mappings and not ctl.mappings:
        st.info(t("ctl.no_mappings"))
    return ctl
