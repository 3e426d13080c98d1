"""Sidebar controls shared by every page, their URL state, and the parsing of user input.

Every control is an :class:`Option` whose key is both its ``st.session_state`` key and its query
parameter. The URL is read when a session starts (``_load_url``; a page's own controls take
their value from that same first URL when the page first draws them, :func:`page_option`): each
value is parsed and checked here, never handed to a widget unchecked, and a bad one gives an
inline message and leaves the default. After each run :func:`sync_url` writes the non-default values back, so the
address reproduces the view. The mapping parameters are not listed here: one control per
distinct parameter name of ``probcore.registry.MAPPINGS``.

:func:`sidebar` draws the controls and returns :class:`Controls`, the checked values every page
reads with :func:`current`: logits, the selected mappings and each one's keyword arguments
(checked by the registry and by a real call; a bad value falls back to the last valid one, else
the default, with a message naming the mapping).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np
import streamlit as st

from explorer import compute
from explorer.i18n import LANGS, mapping_label, param_help, param_label, t
from probcore.check import parse_vector
from probcore.registry import MAPPINGS

N_MIN, N_MAX = 2, 1000
SLIDER_MAX_N = 12  # per-logit sliders up to this n
TOP_VIEW = 50  # charts show the top 50 classes beyond this n
LOGIT_LIMIT = 1e4
SEED_MAX = 2**31 - 1
INT_LIMIT = SEED_MAX  # any integer from the URL
DEFAULT_LOGITS = "1.2, 0.3, -0.5"
PRESETS = ("custom", "uniform", "one_dominant", "two_tied", "long_tail", "random")
MESSAGE_CHARS = 300


class Option(NamedTuple):
    """A control kept in ``st.session_state[key]`` and in the query parameter ``key``."""

    key: str
    kind: str  # "float" | "int" | "choice" | "bool" | "text" | "multi"
    default: Any
    choices: tuple = ()
    low: float | None = None  # bounds checked when read from the URL (ints and floats)
    high: float | None = None


def _param_options() -> dict[str, Option]:
    """One option per distinct registry parameter name (first definition wins)."""
    options: dict[str, Option] = {}
    for mapping in MAPPINGS.values():
        for p in mapping.params:
            default = float(p.default) if p.kind == "float" and p.default is not None else p.default
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
        raise ValueError(t("err.range", key=key, value=quote(token), low=f"{-np.inf if option.low is None else option.low:g}",
                                   high=f"{np.inf if option.high is None else option.high:g}"))
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
                notes.append(t("msg.url_param", key=quote(key), error=str(err)))
    ss["_url_notes"] = notes


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
                st.warning(plain(t("msg.url_param", key=quote(option.key), error=str(err))))
    ss.setdefault("_page_options", {})[option.key] = option
    return render(option.key)


def page_slider(key: str, label: str, default: float, low: float, high: float, step: float) -> float:
    """A page-local slider over [low, high] kept in the URL (:func:`page_option`); an int slider
    when every bound is an int."""
    kind = "int" if all(isinstance(v, int) for v in (default, low, high, step)) else "float"
    return page_option(Option(key, kind, default, low=low, high=high), lambda k: st.slider(
        label, low, high, step=step, key=k, persist_state="session"))


def sync_url() -> None:
    """Write every non-default control of this run to the URL (logits only for the custom preset,
    n only for the other presets); no message when nothing changed."""
    ss = st.session_state
    options = {**OPTIONS, **ss.get("_page_options", {})}
    custom = ss.get("preset") == "custom"
    wanted = {}
    for key, option in options.items():
        if key not in ss or (key == "logits" and not custom) or (key == "n" and custom):
            continue
        value = ss[key]
        if value != option.default and not (option.kind == "multi" and tuple(value) == tuple(option.default)):
            wanted[key] = serialize(option, value)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def _reset() -> None:
    ss = st.session_state
    for key, option in {**OPTIONS, **ss.get("_page_options", {})}.items():
        ss[key] = option.default
    for key in [k for k in ss if k.startswith("x_")]:
        del ss[key]
    ss["_last_kwargs"] = {}
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
    """The registry defaults of a mapping's parameters."""
    return {p.name: p.default for p in MAPPINGS[name].params}


def default_kw(name: str) -> tuple:
    """The registry defaults as the sorted items compute's functions take."""
    return compute.items(default_kwargs(name))


def current() -> Controls:
    """The controls of this run (set by :func:`sidebar` before the page runs)."""
    return st.session_state["_controls"]


def _on_text() -> None:
    st.session_state["preset"] = "custom"


def _on_n() -> None:
    """n changed under the custom preset: keep the first logits, pad with zeros."""
    ss = st.session_state
    if ss["preset"] == "custom":
        x = ss["_last_x"]
        ss["logits"] = format_logits(np.concatenate([x, np.zeros(max(0, ss["n"] - len(x)))])[: ss["n"]])


def _on_slider(i: int) -> None:
    ss = st.session_state
    x = np.array(ss["_last_x"], dtype=float)
    x[i] = ss[f"x_{i}"]
    ss["logits"] = format_logits(x)
    ss["preset"] = "custom"


def set_logits(x: np.ndarray) -> None:
    """A callback that puts new logits in the controls (custom preset), as if typed."""
    st.session_state["logits"] = format_logits(np.clip(x, -LOGIT_LIMIT, LOGIT_LIMIT))
    st.session_state["preset"] = "custom"


def _logits(messages: list[str]) -> np.ndarray:
    ss = st.session_state
    if ss["preset"] != "custom":
        x = preset_logits(ss["preset"], int(ss["n"]), int(ss["seed"]))
        ss["logits"] = format_logits(x)
    else:
        try:
            x = parse_logits(ss["logits"])
        except ValueError as err:
            messages.append(t("msg.logits", error=str(err)))
            x = ss.get("_last_x", parse_logits(DEFAULT_LOGITS))
    ss["_last_x"] = x
    ss["n"] = len(x)
    return x


def _checked_kwargs(name: str, x: np.ndarray, target: int, seed: int,
                    errors: dict[str, list[str]]) -> tuple[dict, np.ndarray] | None:
    """The mapping's keyword arguments from the controls (empty fields left out) if the registry
    accepts them for this n and a call at the current logits gives finite probabilities. When
    they clash (k and top_p, temperature and beta) the ones equal to their default are left out
    first; then the last valid arguments, then the defaults; None if nothing works. A failure of
    the controls' values is noted in ``errors[message]``. Returns (kwargs, p)."""
    mapping = MAPPINGS[name]
    ss = st.session_state
    last = ss.setdefault("_last_kwargs", {})
    defaults = default_kwargs(name)
    wanted = {p.name: ss[p.name] for p in mapping.params if ss[p.name] is not None}
    reduced = {k: v for k, v in wanted.items() if v != defaults[k]}
    failures = []  # messages of the candidates from the controls (wanted, reduced)
    for k, candidate in enumerate((wanted, reduced, last.get(name), defaults)):
        if candidate is None:
            continue
        try:
            kwargs = mapping.validate(n=len(x), **candidate)
            p = compute.probabilities(name, tuple(map(float, x)), compute.items(kwargs), target, seed)
            if not np.all(np.isfinite(p)):
                raise ValueError(t("err.nonfinite"))
        except ValueError as err:
            if k < 2:
                failures.append(str(err))
            continue
        if k > 1:
            errors.setdefault(failures[-1], []).append(mapping_label(name))
        last[name] = kwargs
        return kwargs, p
    errors.setdefault(failures[-1], []).append(mapping_label(name))
    return None


def _param_widget(container, option: Option) -> None:
    """The control of one registry parameter; number fields can be emptied (= not given)."""
    params = [(mapping_label(m.name), p) for m in MAPPINGS.values() for p in m.params if p.name == option.key]
    first = params[0][1]
    help_text = f"{param_help(option.key)}\n\n{t('sb.used_by', mappings=', '.join(label for label, _ in params))}"
    label = param_label(option.key)
    if option.kind == "choice":
        container.selectbox(label, option.choices, key=option.key, help=help_text)
    elif option.kind == "bool":
        container.toggle(label, key=option.key, help=help_text)
    elif option.kind == "int":
        container.number_input(label, key=option.key, value=None, step=int(first.step or 1), help=help_text)
    else:
        container.number_input(label, key=option.key, value=None, step=float(first.step or 0.1), format="%g", help=help_text)


def sidebar() -> Controls:
    """Draw the session-level controls in the sidebar and return the checked values; messages
    about bad input go to the main area (``show_messages``)."""
    ss = st.session_state
    if "_url_notes" not in ss:
        _load_url(OPTIONS)
    for key, option in OPTIONS.items():
        ss.setdefault(key, option.default)
    ss["_page_options"] = {}
    ss["_notes"] = set()
    messages: list[str] = list(ss["_url_notes"])
    ss["_url_notes"] = []  # shown once, on the run that read the URL

    x = _logits(messages)
    n = len(x)
    target = int(ss["target"])
    if not 0 <= target < n:
        messages.append(t("msg.target", target=target, n=n))
        target = ss["target"] = 0
    seed = int(ss["seed"])
    errors: dict[str, list[str]] = {}
    kwargs, probs = {}, {}
    for name in ss["show"]:
        checked = _checked_kwargs(name, x, target, seed, errors)
        if checked is None:
            messages.append(t("msg.mapping_dropped", mapping=mapping_label(name)))
        else:
            kwargs[name], probs[name] = checked
    messages += [t("msg.param", error=err, mappings=", ".join(names)) for err, names in errors.items()]
    ss["_messages"] = messages

    sb = st.sidebar
    sb.selectbox(t("sb.lang"), LANGS, key="lang", format_func=lambda code: t(f"lang.{code}"))
    sb.toggle(t("sb.present"), key="present", help=t("sb.present_help"))
    sb.subheader(t("sb.logits"))
    sb.selectbox(t("sb.preset"), PRESETS, key="preset", format_func=lambda p: t(f"preset.{p}"))
    c1, c2 = sb.columns(2)
    c1.number_input(t("sb.n"), key="n", min_value=N_MIN, max_value=N_MAX, step=1, on_change=_on_n)
    c2.number_input(t("sb.seed"), key="seed", min_value=0, max_value=SEED_MAX, step=1, help=t("sb.seed_help"))
    sb.text_input(t("sb.logits_text"), key="logits", on_change=_on_text, help=t("sb.logits_help"))
    if n <= SLIDER_MAX_N:
        bound = float(max(10.0, np.ceil(np.abs(x).max())))
        with sb.expander(t("sb.sliders"), expanded=True):
            for i in range(n):
                ss[f"x_{i}"] = float(x[i])
                st.slider(f"x{i}", -bound, bound, step=0.05, key=f"x_{i}", on_change=_on_slider, args=(i,))
    else:
        sb.caption(t("sb.no_sliders", n=n, top=SLIDER_MAX_N))
    sb.subheader(t("sb.mappings"))
    sb.multiselect(t("sb.show"), tuple(MAPPINGS), key="show", format_func=mapping_label)
    sb.number_input(t("sb.target"), key="target", min_value=0, max_value=n - 1, step=1, help=t("sb.target_help"))
    sb.subheader(t("sb.params"))
    for option in PARAM_OPTIONS.values():
        _param_widget(sb, option)
    sb.button(t("sb.reset"), on_click=_reset, width="stretch")

    controls = Controls(logits=x, mappings=tuple(n_ for n_ in MAPPINGS if n_ in kwargs), kwargs=kwargs,
                        probs={n_: probs[n_] for n_ in MAPPINGS if n_ in probs}, target=target, seed=seed)
    ss["_controls"] = controls
    return controls


def show_messages() -> None:
    """Inline messages about bad input of this run (escaped: user text never renders as Markdown)."""
    for message in st.session_state.get("_messages", []):
        st.error(plain(message), icon="⚠️")
