"""Lessons: a teacher's path through the pages, read from small TOML files in lessons/ (format in
lessons/README.md). Parsed with tomllib and validated here, never executed; no Streamlit session
needed (the player is explorer/classroom/lesson_bar.py and views/lesson/page.py).

A step is a page plus that page's state as the query parameters a shared link carries, checked
with :func:`explorer.session.state.parse_option`. Narrations hold no typed numbers: ``{{name:arg:arg|.3f}}``
is a placeholder resolved by the computation ``name`` of :data:`COMPUTATIONS` (a whitelist of
functions that call probcore with the step's state); anything else between ``{{`` and ``}}`` is
refused.
"""

from __future__ import annotations

import functools
import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

from explorer import compute
from explorer.classroom import strings as classroom_strings
from explorer.i18n import LANGS, register, t
from explorer.session import state
from probcore.registry import MAPPINGS
from views import registry
from views.attention import compute as attention_compute
from views.check import compute as check_compute
from views.margin import compute as margin_compute
from views.perturb import compute as perturb_compute
from views.vocab import compute as vocab_compute

register(classroom_strings.STRINGS)  # the classroom's words: the lesson bar and the Lessons page import this module too

LESSON_DIR = Path(__file__).resolve().parents[2] / "lessons"
MAX_BYTES = 64 * 1024  # a lesson file
MAX_STEPS = 30
MIN_STEPS = 1
TITLE_CHARS = 120
TEXT_CHARS = 4000  # one narration, question or answer
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
VIEWER_KEYS = ("lang", "present")  # the viewer's own choices: a step never sets them
PLAYER_KEYS = ("lesson", "step", "room")  # the player's own query parameters
TEXT_FIELDS = ("text", "question", "answer")
# Markup a lesson may not hold: html, inline links and images, reference-style links and images
# ("[a][r]", "![a][r]", a definition "[r]: https://..."; a followed image is a request to another
# host from every student's browser), javascript: and data: URLs.
MARKUP = re.compile(
    r"<[A-Za-z/!?]|\]\s*\(|\]\s*\[|!\[|^[ \t]{0,3}\[[^\]\n]*\]:|javascript:|data:text", re.IGNORECASE | re.MULTILINE
)
MAX_PLACEHOLDERS = 160  # per file (the shipped lessons hold at most 78): each one a computation at its step
PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
PLACEHOLDER_BODY = re.compile(r"\s*([a-z_0-9]+)((?::[A-Za-z0-9_.+-]+)*)\s*(?:\|\s*(\.\d{1,2}[fge%]))?\s*")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message names the line and step."""


@dataclass(frozen=True)
class Step:
    page: str  # a page id of views/registry.py (one a lesson may show)
    params: dict[str, str]  # query parameters, as a link carries them (checked)
    texts: dict[str, dict[str, str]]  # field -> lang -> text with placeholders (field "text" always present)
    line: int = 0  # line of its [[step]] header in the file

    def values(self) -> dict[str, Any]:
        """The parsed value of every parameter the step sets."""
        options = {**state.OPTIONS, **{o.key: o for o in registry.PAGES[self.page].options}}
        return {key: state.parse_option(options[key], [raw]) for key, raw in self.params.items()}


@dataclass(frozen=True)
class Lesson:
    id: str
    title: dict[str, str]  # lang -> title
    steps: tuple[Step, ...]
    source: str = field(default="", compare=False)  # the file's text

    def title_in(self, lang: str) -> str:
        return self.title.get(lang) or self.title["en"]


# ---------------------------------------------------------------- the step's state, computed ----


@dataclass(frozen=True)
class StepState:
    """The view a step describes: every control at its default unless the step sets it."""

    values: dict[str, Any]

    @classmethod
    def of(cls, step: Step) -> "StepState":
        defaults = {key: o.default for key, o in {**state.OPTIONS, **registry.all_options()}.items()}
        return cls({**defaults, **step.values()})

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    @property
    def logits(self) -> np.ndarray:
        v = self.values
        if v["preset"] == "custom":
            return state.parse_logits(v["logits"])
        return state.preset_logits(v["preset"], int(v["n"]), int(v["seed"]))

    def kwargs(self, name: str) -> dict:
        """The mapping's keyword arguments from the step's parameters, checked by the registry."""
        mapping = _mapping(name)
        given = {
            p.name: self.values[p.name]
            for p in mapping.params
            if self.values[p.name] is not None and self.values[p.name] != p.default
        }  # as state._checked_kwargs reduces
        return mapping.validate(n=len(self.logits), **given)

    def probabilities(self, name: str) -> np.ndarray:
        return compute.probabilities(
            name,
            tuple(map(float, self.logits)),
            compute.items(self.kwargs(name)),
            int(self.values["target"]),
            int(self.values["seed"]),
        )


def _mapping(name: str):
    if name not in MAPPINGS:
        raise ValueError(t("lesson.err.mapping", name=state.quote(name), choices=", ".join(MAPPINGS)))
    return MAPPINGS[name]


def _index(token: str, size: int) -> int:
    if not re.fullmatch(r"\d{1,6}", token) or int(token) >= size:
        raise ValueError(t("lesson.err.index", value=state.quote(token), high=size - 1))
    return int(token)


def _entry(vector_of: Callable[["StepState", str], np.ndarray]):
    """A computation ``name:i``: entry i of a vector of the step."""

    def entry(s: StepState, name: str, i: str) -> float:
        v = vector_of(s, name)
        return float(v[_index(i, len(v))])

    return entry


def _jacobian(s: StepState, name: str) -> np.ndarray:
    jac, _ = compute.jacobians(
        name, tuple(map(float, s.logits)), compute.items(s.kwargs(name)), int(s["target"]), int(s["seed"])
    )
    return jac


def _bounded(jacobian: np.ndarray) -> np.ndarray:
    """A Jacobian small enough for an O(n^3) SVD: n <= compute.AUTOGRAD_MAX_N, as the page asks."""
    if len(jacobian) > compute.AUTOGRAD_MAX_N:
        raise ValueError(t("lesson.err.rank_n", n=len(jacobian), high=compute.AUTOGRAD_MAX_N))
    return jacobian


def _loss_and_grad(s: StepState, name: str) -> tuple[float, np.ndarray]:
    out = compute.loss_and_grad(name, tuple(map(float, s.logits)), compute.items(s.kwargs(name)), int(s["target"]))
    if out is None:
        raise ValueError(t("lesson.err.no_loss", name=state.quote(name)))
    return out


def _margin(s: StepState) -> dict:
    classes = int(s["margin_classes"])
    return margin_compute.margin_point(
        classes,
        float(s["margin_angle"]),
        float(s["margin_m"]),
        float(s["margin_s"]),
        min(int(s["margin_target"]), classes - 1),
    )


def _attention(s: StepState, name: str) -> np.ndarray:
    """The attention weights of the first query (random inputs of the page's seed; not an edited query)."""
    if name not in attention_compute.ATTENTION_MAPPINGS:
        raise ValueError(
            t("lesson.err.mapping", name=state.quote(name), choices=", ".join(attention_compute.ATTENTION_MAPPINGS))
        )
    length = int(s["attention_L"])
    q, keys, _ = attention_compute.attention_inputs(
        length, int(s["attention_d"]), int(s["attention_queries"]), int(s["attention_seed"])
    )
    scores = attention_compute.attention_scores(q, keys, float(s["attention_scale"]))
    params = {
        "entmax": {"alpha": float(s["attention_alpha"])},
        "sparse_softmax": {"k": min(int(s["attention_k"]), length)},
    }
    kw = MAPPINGS[name].validate(n=length, **params.get(name, {}))
    rows = tuple(tuple(float(v) for v in row) for row in scores)
    return attention_compute.attention_weights(name, rows, compute.items(kw))[0]


def _gumbel_max(s: StepState) -> tuple[int, np.ndarray]:
    """(N, Gumbel-max frequencies at N) as the perturb page draws them (N capped for large n)."""
    n_max = min(int(s["perturb_samples"]), perturb_compute.sample_cap(len(s.logits)))
    ns, freqs = perturb_compute.perturbmax_nested(tuple(map(float, s.logits)), "gumbel", n_max, int(s["seed"]))
    return int(ns[-1]), freqs[-1]


def _gap_bound(s: StepState, n: str, k: int | None = None) -> float:
    from explorer.training import logit_gap_bound

    if not re.fullmatch(r"\d{1,7}", n) or int(n) < 2:
        raise ValueError(t("lesson.err.index", value=state.quote(n), high=10**7))
    return logit_gap_bound(int(n), float(s["oc_eps"]), k=None if k is None else min(k, int(n)))


def _check_rows(s: StepState, verdict: str) -> int:
    """Rows of the step's check example whose verdict is ``ok`` (or not)."""
    from probcore.check import check_outputs

    example = s["check_example"]
    if example == "none" or verdict not in ("ok", "mismatch"):
        raise ValueError(t("lesson.err.check"))
    mapping, params, x, p = check_compute.check_example(example)
    verdicts = check_outputs(x, p, mapping, **params)
    return sum(v.ok == (verdict == "ok") for v in verdicts)


def _param(s: StepState, key: str) -> Any:
    if key not in s.values:
        raise ValueError(t("lesson.err.param_name", key=state.quote(key)))
    return s[key]


class Computation(NamedTuple):
    fn: Callable[..., Any]
    args: str  # what the arguments are, for messages and lessons/README.md (what it computes:
    #             "lesson.ph.<name>" in views/lesson/strings.py, listed by the lesson editor)


COMPUTATIONS: dict[str, Computation] = {
    "n": Computation(lambda s: len(s.logits), ""),
    "x": Computation(lambda s, i: float(s.logits[_index(i, len(s.logits))]), "i"),
    "gap": Computation(lambda s: float(np.ptp(s.logits)), ""),
    "param": Computation(_param, "key"),
    "p": Computation(_entry(StepState.probabilities), "mapping:i"),
    "pmax": Computation(lambda s, name: float(s.probabilities(name).max()), "mapping"),
    "support": Computation(lambda s, name: compute.support_size(s.probabilities(name)), "mapping"),
    "entropy": Computation(lambda s, name: float(compute.entropy(s.probabilities(name))), "mapping"),
    "sumsq": Computation(lambda s, name: float(np.sum(s.probabilities(name) ** 2)), "mapping"),
    "trace": Computation(lambda s, name: float(np.trace(_jacobian(s, name))), "mapping"),
    "rank": Computation(lambda s, name: compute.rank(_bounded(_jacobian(s, name))), "mapping"),
    "jac": Computation(
        lambda s, name, i, j: float(_jacobian(s, name)[_index(i, len(s.logits)), _index(j, len(s.logits))]),
        "mapping:i:j",
    ),
    "loss": Computation(lambda s, name: _loss_and_grad(s, name)[0], "mapping"),
    "grad": Computation(_entry(lambda s, name: _loss_and_grad(s, name)[1]), "mapping:i"),
    "margin_p": Computation(lambda s, i: float(_margin(s)["p"][_index(i, int(s["margin_classes"]))]), "i"),
    "margin_p0": Computation(lambda s, i: float(_margin(s)["p0"][_index(i, int(s["margin_classes"]))]), "i"),
    "margin_loss": Computation(lambda s: _margin(s)["loss"], ""),
    "margin_loss0": Computation(lambda s: _margin(s)["loss0"], ""),
    "attn": Computation(_entry(_attention), "mapping:j"),
    "attn_max": Computation(lambda s, name: float(_attention(s, name).max()), "mapping"),
    "attn_support": Computation(lambda s, name: int(np.count_nonzero(_attention(s, name))), "mapping"),
    "mc_freq": Computation(lambda s, i: float(_gumbel_max(s)[1][_index(i, len(s.logits))]), "i"),
    "clt": Computation(
        lambda s: float(perturb_compute.clt_total_variation(s.probabilities("softmax"), [_gumbel_max(s)[0]])[0]), ""
    ),
    "gap_bound": Computation(lambda s, n: _gap_bound(s, n), "n"),
    "gap_bound_topk": Computation(lambda s, n: _gap_bound(s, n, int(s["oc_k"])), "n"),
    "hs_sum": Computation(
        lambda s: vocab_compute.vocab_hs(int(s["vocab_n"]), float(s["vocab_s"]), int(s["vocab_seed"]))["sum"], ""
    ),
    "hs_expected": Computation(
        lambda s: vocab_compute.vocab_hs(int(s["vocab_n"]), float(s["vocab_s"]), int(s["vocab_seed"]))["expected"], ""
    ),
    "hs_entropy": Computation(
        lambda s: vocab_compute.vocab_hs(int(s["vocab_n"]), float(s["vocab_s"]), int(s["vocab_seed"]))["entropy"], ""
    ),
    "log2n": Computation(lambda s: math.log2(int(s["vocab_n"])), ""),
    "check_rows": Computation(_check_rows, "verdict"),
}


def _arity(name: str) -> int:
    spec = COMPUTATIONS[name].args
    return len(spec.split(":")) if spec else 0


def format_value(value: Any, fmt: str | None) -> str:
    """An int as is; a float with ``fmt`` (default 3 significant digits)."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    if isinstance(value, (int, np.integer)) and fmt is None:
        return str(int(value))
    if isinstance(value, (int, float, np.integer, np.floating)):
        return format(float(value), fmt or ".3g")
    return str(value)


def placeholders(text: str) -> list[tuple[str, str, list[str], str | None]]:
    """(whole placeholder, name, args, format) of every ``{{...}}`` in ``text``; LessonError for an
    unknown name, a wrong number of arguments or a malformed one."""
    found = []
    for match in PLACEHOLDER.finditer(text):
        body = PLACEHOLDER_BODY.fullmatch(match.group(1))
        if body is None or body.group(1) not in COMPUTATIONS:
            raise LessonError(t("lesson.err.placeholder", text=state.quote(match.group(0))))
        name, args = body.group(1), [a for a in body.group(2).split(":") if a]
        if len(args) != _arity(name):
            raise LessonError(
                t("lesson.err.arity", text=state.quote(match.group(0)), name=name, args=COMPUTATIONS[name].args or "-")
            )
        found.append((match.group(0), name, args, body.group(3)))
    return found


def resolve(text: str, step: Step) -> str:
    """The text with every placeholder replaced by its computation at the step's state (never eval;
    each value computed once per state, :func:`_value`); a text value (``param`` of a free-text
    option) with every Markdown punctuation escaped: no link or image through a placeholder."""
    out = text
    for whole, name, args, fmt in placeholders(text):
        try:
            value = _value(step.page, tuple(sorted(step.params.items())), name, tuple(args))
        except ValueError as err:
            raise LessonError(t("lesson.err.compute", text=state.quote(whole), error=err)) from None
        shown = format_value(value, fmt)
        out = out.replace(whole, re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", shown) if isinstance(value, str) else shown, 1)
    return out


def narration(step: Step, lang: str, field: str = "text") -> str:
    """The step's ``field`` in ``lang`` (English where that language's is empty), every placeholder
    resolved at the step's state (:func:`resolve`): Markdown with LaTeX, whole (never cut)."""
    return resolve(step.texts[field].get(lang) or step.texts[field]["en"], step)


@functools.lru_cache(maxsize=2048)
def _value(page: str, params: tuple, name: str, args: tuple) -> Any:
    """COMPUTATIONS[name] at the state of a step of ``page`` with ``params``, memoised per worker:
    a lesson's placeholders cost one computation each per state, not one per rerun of the page."""
    return COMPUTATIONS[name].fn(StepState.of(Step(page, dict(params), {})), *args)


# ---------------------------------------------------------------- reading and checking a file ----


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _step_lines(text: str) -> list[int]:
    return [_line_of(text, m.start()) for m in re.finditer(r"^[ \t]*\[\[[ \t]*step[ \t]*\]\]", text, re.MULTILINE)]


def decode(data: bytes) -> str:
    """UTF-8 text of a lesson file (a BOM is dropped); LessonError for a huge or non-UTF-8 file."""
    if len(data) > MAX_BYTES:
        raise LessonError(t("lesson.err.size", size=len(data), limit=MAX_BYTES))
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        raise LessonError(t("lesson.err.encoding", line=_line_of(data.decode("latin-1"), err.start))) from None


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise LessonError(t("lesson.err.type", where=where, kind="text"))
    if len(value) > TEXT_CHARS:
        raise LessonError(t("lesson.err.long", where=where, limit=TEXT_CHARS))
    if MARKUP.search(value):
        raise LessonError(t("lesson.err.markup", where=where, text=state.quote(MARKUP.search(value).group(0))))
    return value


def _param_value(value: Any) -> str:
    """A parameter as a link carries it: strings as written, numbers, booleans as 1/0, lists joined."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    raise TypeError


def _step(raw: Any, number: int, line: int) -> Step:
    where = t("lesson.where_step", step=number, line=line)
    if not isinstance(raw, dict):
        raise LessonError(t("lesson.err.type", where=where, kind="table"))
    unknown = sorted(set(raw) - {"page", "params"} - {f"{f}_{lang}" for f in TEXT_FIELDS for lang in LANGS})
    if unknown:
        raise LessonError(t("lesson.err.step_key", where=where, keys=", ".join(unknown)))
    page = raw.get("page")
    pages = registry.lesson_pages()
    if page not in pages:
        raise LessonError(t("lesson.err.page", where=where, page=state.quote(page), pages=", ".join(pages)))
    params_raw = raw.get("params", {})
    if not isinstance(params_raw, dict):
        raise LessonError(t("lesson.err.type", where=where, kind="table"))
    options = {**state.OPTIONS, **{o.key: o for o in pages[page].options}}
    params = {}
    for key, value in params_raw.items():
        if key in VIEWER_KEYS or key in PLAYER_KEYS:
            raise LessonError(t("lesson.err.viewer_key", where=where, key=state.quote(key)))
        if key not in options:
            raise LessonError(t("lesson.err.param_unknown", where=where, key=state.quote(key), page=page))
        try:
            params[key] = _param_value(value)
            state.parse_option(options[key], [params[key]])
        except TypeError:
            raise LessonError(t("lesson.err.type", where=f"{where}, {key}", kind="text")) from None
        except ValueError as err:
            raise LessonError(f"{where}: {err}") from None
    texts: dict[str, dict[str, str]] = {}
    for f in TEXT_FIELDS:
        given = {lang: _text(raw[f"{f}_{lang}"], f"{where}, {f}_{lang}") for lang in LANGS if f"{f}_{lang}" in raw}
        if f == "text" and len(given) < len(LANGS) or given and len(given) < len(LANGS):
            missing = [f"{f}_{lang}" for lang in LANGS if lang not in given]
            raise LessonError(t("lesson.err.missing", where=where, keys=", ".join(missing)))
        if given:
            texts[f] = given
    step = Step(page, params, texts, line)
    try:
        step.values()
        StepState.of(step).logits  # noqa: B018 (the preset or logits must give a vector)
    except ValueError as err:
        raise LessonError(f"{where}: {err}") from None
    for f, by_lang in texts.items():
        for lang, text in by_lang.items():
            try:
                resolve(text, step)
            except LessonError as err:
                raise LessonError(f"{where}, {f}_{lang}: {err}") from None
    return step


def parse(data: bytes | str, lesson_id: str) -> Lesson:
    """A checked lesson from the bytes (or text) of a file; LessonError naming the line / step."""
    if not ID_PATTERN.fullmatch(lesson_id):
        raise LessonError(t("lesson.err.id", id=state.quote(lesson_id)))
    text = decode(data.encode("utf-8") if isinstance(data, str) else data)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise LessonError(t("lesson.err.toml", error=err)) from None
    except RecursionError:  # tomllib recurses per nesting level: a file nested thousands deep
        raise LessonError(t("lesson.err.toml", error=t("lesson.err.nested"))) from None
    unknown = sorted(set(raw) - {f"title_{lang}" for lang in LANGS} - {"step"})
    if unknown:
        raise LessonError(t("lesson.err.top_key", keys=", ".join(unknown)))
    title = {}
    for lang in LANGS:
        if f"title_{lang}" not in raw:
            raise LessonError(t("lesson.err.missing", where=t("lesson.where_file"), keys=f"title_{lang}"))
        title[lang] = _text(raw[f"title_{lang}"], f"title_{lang}").strip()
        if not title[lang] or len(title[lang]) > TITLE_CHARS:
            raise LessonError(t("lesson.err.long", where=f"title_{lang}", limit=TITLE_CHARS))
    steps_raw = raw.get("step", [])
    if not isinstance(steps_raw, list) or not (MIN_STEPS <= len(steps_raw) <= MAX_STEPS):
        raise LessonError(t("lesson.err.steps", low=MIN_STEPS, high=MAX_STEPS))
    if len(PLACEHOLDER.findall(text)) > MAX_PLACEHOLDERS:
        raise LessonError(t("lesson.err.placeholders", got=len(PLACEHOLDER.findall(text)), limit=MAX_PLACEHOLDERS))
    lines = _step_lines(text) + [0] * len(steps_raw)
    steps = tuple(_step(s, k + 1, lines[k]) for k, s in enumerate(steps_raw))
    return Lesson(lesson_id, title, steps, text)


def shipped() -> dict[str, Lesson]:
    """Every lesson in lessons/ (file name = id), in file-name order; a broken file raises."""
    return {path.stem: parse(path.read_bytes(), path.stem) for path in sorted(LESSON_DIR.glob("*.toml"))}


# ---------------------------------------------------------------- writing a file ----


def _toml_string(s: str) -> str:
    """A TOML string: a literal string where it can be one (LaTeX backslashes stay as written), else
    a basic string with escapes."""
    if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", s) or "'''" in s or s.endswith("'"):
        return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")
    if "\n" in s:
        return "'''\n" + s + "'''"  # the newline after the opening quotes is not part of the string
    return "'" + s + "'" if "'" not in s else "'''" + s + "'''"


def dump(title: dict[str, str], steps: list[Step]) -> str:
    """The TOML text of a lesson (the format :func:`parse` reads)."""
    lines = [f"title_{lang} = {_toml_string(title.get(lang, ''))}" for lang in LANGS]
    for step in steps:
        lines += ["", "[[step]]", f"page = {_toml_string(step.page)}"]
        if step.params:
            lines.append(
                "params = { "
                + ", ".join(f"{json.dumps(k)} = {json.dumps(v, ensure_ascii=False)}" for k, v in step.params.items())
                + " }"
            )
        for f in TEXT_FIELDS:
            for lang, text in step.texts.get(f, {}).items():
                lines.append(f"{f}_{lang} = {_toml_string(text)}")
    return "\n".join(lines) + "\n"
