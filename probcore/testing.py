"""Conformance kit: test your own implementation of a mapping against probcore, in one line of pytest.

    from probcore.testing import check_implementation

    def test_my_sparsemax():
        check_implementation(my_sparsemax, "sparsemax")

``fn`` is a torch callable ``fn(x, dim=-1, **params) -> p`` (p the shape and dtype of x, as
torch.softmax), called with the parameters given here (e.g. ``temperature=0.5``, ``alpha=1.3``)
and, for am_softmax, ``target=`` (a class index per row, chosen by the kit). numpy functions are
not accepted directly: the kit needs dtypes, ``dim`` and autograd; wrap one with
``torch.from_numpy`` and ``skip=("gradients",)``, or check its rows with ``probcore check`` /
:func:`probcore.check.check_outputs`. ``device="cuda"`` feeds fn CUDA tensors.

The cases (:data:`CASES`), each compared with probcore's mapping of the same input in float64:

* ``values``: random rows, float64, to atol 1e-6 + rtol 1e-5 (|p - ref| <= atol + rtol |ref|);
* ``ties``: equal logits (a tied maximum, an all-equal row); entries tied in x may trade places
  (top-k keeps any of the tied entries);
* ``n1``: one entry per row (p = 1; k is capped at n);
* ``dim``: a (2, 6, 3) tensor mapped along dim=1;
* ``mask``: ``-inf`` entries (also at a row's would-be maximum, and a row with one finite entry)
  get exactly 0, the rest is the mapping over the unmasked entries;
* ``fully_masked``: a row of only ``-inf`` among normal rows. probcore returns zeros there; the
  kit accepts zeros or NaN on that row (both say "no distribution"), but nothing else, and the
  other rows must be exact (no NaN leaking across the batch);
* ``large_float32``: logits of +-3e4 in float32 and ``large_float16``: logits of +-1e4 in float16
  (exp overflows without max-subtraction; float16 needs float32 arithmetic inside, as
  torch.softmax does): tolerance 2 eps(dtype) + 4 eps(float32) max |x / T| (the rounding of x / T);
* ``small_temperature``: T = 1e-3 (sign of the given T), when the mapping has a temperature and
  fn takes one (``temperature`` in its signature or in ``params``) and no beta is given;
* ``gradients``: d(sum v p)/dx against the analytic Jacobian (:func:`probcore.jacobian`), float64,
  a masked entry included (its gradient must be 0, not NaN).

A failing case raises AssertionError naming the case, the first failing row (logits, expected,
got) and the likely cause: :func:`probcore.check.check_outputs`' diagnosis (no max-subtraction,
wrong temperature, log-probabilities, support off by one, ...), else the case's usual culprit.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Collection

import numpy as np
import torch

from probcore.check import RowVerdict, check_outputs
from probcore.errors import ProbcoreError
from probcore.hypotheses import _EXP_MAPPINGS
from probcore.jacobian import jacobian
from probcore.registry import Mapping, get_mapping

__all__ = ["CASES", "check_implementation"]

CASES = {
    "values": "random logits, float64",
    "ties": "tied logits (equal entries may trade places)",
    "n1": "one entry per row (n = 1)",
    "dim": "batch dims: a (2, 6, 3) tensor along dim=1",
    "mask": "-inf (masked) entries",
    "fully_masked": "a row of only -inf among normal rows",
    "large_float32": "logits of +-3e4 in float32",
    "large_float16": "logits of +-1e4 in float16",
    "small_temperature": "temperature near 0 (|T| = 1e-3)",
    "gradients": "gradient against the analytic Jacobian",
}

_HINTS = {
    "ties": "equal logits must get equal probability (top-k: any of the tied entries); a threshold "
    "compared with > where >= is needed drops tied entries",
    "n1": "a single entry must get probability 1 (a support search that starts at k = 2, or k > n)",
    "mask": "masked (-inf) entries must get exactly 0 and the others the mapping over the unmasked "
    "entries (exp(-inf) = 0; a polynomial or threshold needs the mask applied explicitly)",
    "small_temperature": "x / T is huge for T near 0: subtract the max after scaling, not before",
}
# The large-logit cases' usual culprit, by whether the mapping computes exp (softmax and its kin) or
# thresholds / powers (sparsemax, entmax, Taylor): an exp overflow is only named where there is an exp.
_LARGE_HINTS = {
    ("large_float32", True): "subtract the row max before exp (exp overflows past 88.7 in float32); the "
    "mapping is unchanged by the shift",
    ("large_float16", True): "compute in float32 inside and cast the result back (as torch.softmax does), "
    "after subtracting the row max (exp overflows past 11.1 in float16)",
    ("large_float32", False): "subtract the row max first: sums of logits near 3e4 keep only ~3e4 x 6e-8 = 2e-3 "
    "of float32 resolution, which moves the threshold; the mapping is unchanged by "
    "the shift",
    ("large_float16", False): "compute in float32 inside and cast the result back, after subtracting the row max: "
    "float16 sums of logits near 1e4 overflow past 65504 (and keep a resolution of 8)",
}


@dataclass
class _Case:
    id: str
    x: torch.Tensor
    dim: int = -1
    params: dict = field(default_factory=dict)  # overrides of the given parameters
    atol: float = 1e-6
    rtol: float = 1e-5


def check_implementation(
    fn: Callable[..., torch.Tensor],
    mapping: str,
    *,
    skip: Collection[str] = (),
    atol: float = 1e-6,
    rtol: float = 1e-5,
    device: str | torch.device = "cpu",
    **params: Any,
) -> tuple[str, ...]:
    """Run fn through the cases of this module's docstring; AssertionError naming the first
    failing case and its likely cause. ``skip``: case ids (keys of :data:`CASES`) to leave out;
    ``atol`` / ``rtol``: the float64 tolerance; ``device``: where fn's inputs live (e.g. "cuda";
    the reference is computed on the CPU). Returns the ids of the cases that ran.
    ValueError for an unknown / stochastic mapping, bad parameters or skip ids."""
    spec = get_mapping(mapping)
    if spec.stochastic:
        raise ProbcoreError("stochastic", mapping=repr(mapping))
    unknown = set(skip) - set(CASES)
    if isinstance(skip, str) or unknown:
        raise ProbcoreError("skip", choices=", ".join(CASES), value=repr(skip))
    if "target" in params:
        raise ProbcoreError("kit_target")
    params = spec.validate(**params)
    device = torch.device(device)
    ran = []
    for case in _cases(spec, fn, params, atol, rtol):
        if case.id in skip:
            continue
        _run_case(fn, spec, params, case, device)
        ran.append(case.id)
    if "gradients" not in skip:
        _check_gradients(fn, spec, params, atol, rtol, device)
        ran.append("gradients")
    return tuple(ran)


# ---------------------------------------------------------------- cases


def _cases(
    spec: Mapping, fn: Callable[..., torch.Tensor], params: dict[str, Any], atol: float, rtol: float
) -> list[_Case]:
    rng = np.random.default_rng(20261124)
    f64 = torch.float64
    inf = math.inf
    cases = [
        _Case("values", torch.tensor(rng.normal(0.0, 2.0, (5, 7)), dtype=f64), atol=atol, rtol=rtol),
        _Case(
            "ties",
            torch.tensor(
                [[1.5, 1.5, 0.2, -0.3, 1.5, 0.2, -1.0], [0.0] * 7, [2.0, 2.0, -1.0, -1.0, 0.5, 0.5, 0.5]], dtype=f64
            ),
            atol=atol,
            rtol=rtol,
        ),
        _Case("n1", torch.tensor([[0.3], [-2.0], [5.0]], dtype=f64), atol=atol, rtol=rtol),
        _Case("dim", torch.tensor(rng.normal(0.0, 2.0, (2, 6, 3)), dtype=f64), dim=1, atol=atol, rtol=rtol),
        _Case(
            "mask",
            torch.tensor(
                [
                    [0.5, -inf, 1.2, -0.7, -inf, 0.1],
                    [-inf, 2.0, 1.9, -inf, 0.3, -0.4],
                    [-inf, -inf, -inf, 4.0, -inf, -inf],
                ],
                dtype=f64,
            ),
            atol=atol,
            rtol=rtol,
        ),
        _Case(
            "fully_masked",
            torch.tensor([[0.4, -1.1, 2.2, 0.0, 0.9, -0.3], [-inf] * 6, [1.0, 1.3, -2.0, 0.8, 0.2, -0.6]], dtype=f64),
            atol=atol,
            rtol=rtol,
        ),
    ]
    spread = rng.normal(0.0, 2.0, (2, 8))
    big32 = np.concatenate([3e4 + spread, -3e4 + spread, [[3e4, 0.0, -3e4, 3e4 - 1.0, 1.0, 3e4 - 2.5, -1.0, 2e4]]])
    steps = rng.integers(-3, 1, (2, 8)) * 8.0  # float16 spacing at 1e4 is 8
    big16 = np.concatenate(
        [1e4 + steps, -1e4 + steps, [[1e4, -1e4, 1e4 - 8, 0.0, 1e4 - 16, 5e3, 1e4, -8.0]], 1e3 + steps[:1] / 16]
    )  # spacing 0.5 at 1e3: x / T in float16 rounds visibly
    scale = (
        abs(float(params["beta"])) if params.get("beta") is not None else 1 / abs(float(params.get("temperature", 1.0)))
    )
    for case_id, values, dtype in (("large_float32", big32, torch.float32), ("large_float16", big16, torch.float16)):
        tol = 2 * torch.finfo(dtype).eps + 4 * torch.finfo(torch.float32).eps * np.abs(values).max() * scale
        cases.append(_Case(case_id, torch.tensor(values, dtype=dtype), atol=tol, rtol=tol))
    if _takes_temperature(spec, fn, params):
        t = math.copysign(1e-3, float(params.get("temperature", 1.0)))
        close_by = 0.5 + 1e-3 * np.array([[0.0, 1.0, -2.0, 0.5, -0.5, 2.0, -1.0]])  # differences ~ T
        near = torch.tensor(np.concatenate([rng.normal(0.0, 1.0, (3, 7)), close_by]), dtype=f64)
        cases.append(_Case("small_temperature", near, params={"temperature": t}, atol=atol, rtol=rtol))
    return cases


def _takes_temperature(spec: Mapping, fn: Callable[..., torch.Tensor], params: dict[str, Any]) -> bool:
    """The mapping has a temperature, no beta replaces it, and fn takes one."""
    if "temperature" not in {p.name for p in spec.params} or params.get("beta") is not None:
        return False
    if "temperature" in params:
        return True
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return "temperature" in signature.parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()
    )


def _case_params(spec: Mapping, params: dict[str, Any], case: _Case, x: torch.Tensor, dim: int) -> dict[str, Any]:
    """The parameters for this case: overrides, k capped at n, a target per row for am_softmax."""
    out = {**params, **case.params}
    if out.get("k") is not None:
        out["k"] = min(out["k"], x.shape[dim])
    if spec.needs_target:
        out["target"] = x.detach().argmax(dim)  # a finite entry of every row that has one
    return out


# ---------------------------------------------------------------- running


def _call(
    fn: Callable[..., torch.Tensor], x: torch.Tensor, dim: int, params: dict[str, Any], case_id: str, mapping: str
) -> torch.Tensor:
    try:
        p = fn(x, dim=dim, **params)
    except Exception as err:  # the user's code: report which case broke it
        raise AssertionError(f"{_title(mapping, case_id)}: fn raised {type(err).__name__}: {err}") from err
    if not isinstance(p, torch.Tensor):
        raise AssertionError(f"{_title(mapping, case_id)}: fn returned {type(p).__name__}, expected a torch.Tensor")
    if p.shape != x.shape:
        raise AssertionError(
            f"{_title(mapping, case_id)}: fn returned shape {tuple(p.shape)} for x of shape "
            f"{tuple(x.shape)} (dim={dim}); the output must have x's shape"
        )
    if p.dtype != x.dtype:
        raise AssertionError(
            f"{_title(mapping, case_id)}: fn returned {p.dtype} for {x.dtype} input; return x's "
            "dtype (compute in float32 inside for float16 / bfloat16 and cast back)"
        )
    return p


def _title(mapping: str, case_id: str) -> str:
    return f"check_implementation(fn, {mapping!r}): case {case_id!r} ({CASES[case_id]}) failed"


def _rows(t: torch.Tensor, dim: int) -> np.ndarray:
    t = t.detach().movedim(dim, -1)
    return t.reshape(-1, t.shape[-1]).double().cpu().numpy()


def _run_case(
    fn: Callable[..., torch.Tensor], spec: Mapping, params: dict[str, Any], case: _Case, device: torch.device
) -> None:
    x, dim = case.x, case.dim
    kw = _case_params(spec, params, case, x, dim)
    on_device = {k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
    p = _call(fn, x.to(device), dim, on_device, case.id, spec.name).cpu()
    with torch.no_grad():
        ref = spec.forward(x.double(), dim=dim, **kw)
    xr, pr, rr = _rows(x, dim), _rows(p, dim), _rows(ref, dim)
    dead = np.isneginf(xr).all(-1)
    for r in np.flatnonzero(dead):
        if not ((pr[r] == 0).all() or np.isnan(pr[r]).all()):
            raise AssertionError(
                f"{_title(spec.name, case.id)}: row {r} is entirely -inf and fn returned "
                f"{_fmt(pr[r])}; return zeros (as probcore does) or NaN on such a row"
            )
    if case.id == "ties":  # entries tied in x may trade places: compare sorted within tie groups
        sorted_p = np.take_along_axis(pr, np.lexsort((pr, xr), axis=-1), -1)
        sorted_ref = np.take_along_axis(rr, np.lexsort((rr, xr), axis=-1), -1)
        close = np.isclose(sorted_p, sorted_ref, atol=case.atol, rtol=case.rtol).all(-1) | dead
    else:
        close = np.isclose(pr, rr, atol=case.atol, rtol=case.rtol).all(-1) | dead
    if close.all():
        return
    if case.id == "dim":
        with torch.no_grad():
            last = spec.forward(x.double(), dim=-1, **{**kw, **({"target": x.argmax(-1)} if spec.needs_target else {})})
        if np.allclose(p.detach().double().numpy(), last.numpy(), atol=case.atol, rtol=case.rtol):
            raise AssertionError(
                f"{_title(spec.name, case.id)}: fn mapped the last dimension, not dim={dim}; "
                "likely cause: dim is ignored (move dim last, map, move it back)"
            )
    live = np.flatnonzero(~dead)
    target = kw["target"].reshape(-1).numpy()[live] if spec.needs_target else None
    first = int(np.flatnonzero(~close)[0])
    verdict = _diagnosis(spec.name, xr[live], pr[live], params, case, target, int(np.searchsorted(live, first)))
    # in the low-precision cases a fitted temperature only absorbs rounding: the case's hint is the story
    trusted = verdict is not None and not (
        case.id.startswith("large_") and str(verdict.cause).startswith("temperature")
    )
    cause = verdict.likely_cause if verdict is not None and trusted else None
    hint = _hint(spec.name, params, case.id)
    if cause is None:
        cause = hint or "no known cause found: compare your formula with probcore.reference"
    elif hint is not None:
        cause += f"\ntypical of this case: {hint}"
    error = np.nan_to_num(np.abs(pr[first] - rr[first]), nan=np.inf)
    differing = int((~np.isclose(pr[first], rr[first], atol=case.atol, rtol=case.rtol)).sum())
    raise AssertionError(
        f"{_title(spec.name, case.id)}: row {first} of {len(xr)} differs at {differing} "
        f"of {xr.shape[1]} entries (max abs error {error.max():.3g}; "
        f"atol {case.atol:.3g}, rtol {case.rtol:.3g}; parameters {_shown(kw)})\n"
        f"  logits:   {_fmt(xr[first])}\n  expected: {_fmt(rr[first])}\n  got:      {_fmt(pr[first])}\n"
        f"likely cause: {cause}"
    )


def _hint(mapping: str, params: dict, case_id: str) -> str | None:
    """The usual culprit of a case for this mapping (None when the case has none)."""
    uses_exp = mapping in _EXP_MAPPINGS or (mapping == "entmax" and params.get("alpha") == 1)
    return _LARGE_HINTS.get((case_id, uses_exp)) or _HINTS.get(case_id)


def _diagnosis(
    mapping: str, x: np.ndarray, p: np.ndarray, params: dict[str, Any], case: _Case, target: np.ndarray | None, row: int
) -> RowVerdict | None:
    """probcore.check's RowVerdict for the given row (None when the check refuses the input)."""
    kw = {**params, **case.params}
    if target is not None:
        kw["target"] = target
    if kw.get("k") is not None:
        kw["k"] = min(kw["k"], x.shape[1])
    try:
        verdicts = check_outputs(x, p, mapping, atol=case.atol, rtol=case.rtol, dtype=case.x.dtype, **kw)
    except ValueError:
        return None
    return verdicts[row]


def _check_gradients(
    fn: Callable[..., torch.Tensor],
    spec: Mapping,
    params: dict[str, Any],
    atol: float,
    rtol: float,
    device: torch.device,
) -> None:
    """d(sum v p)/dx from fn's autograd against v^T J, J the analytic Jacobian."""
    rng = np.random.default_rng(7)
    values = rng.normal(0.0, 1.5, (4, 6))
    values[3, 2] = -math.inf
    x = torch.tensor(values, dtype=torch.float64, device=device, requires_grad=True)
    case = _Case("gradients", x)
    kw = _case_params(spec, params, case, x, -1)
    p = _call(fn, x, -1, kw, "gradients", spec.name)
    title = _title(spec.name, "gradients")
    if not p.requires_grad:
        raise AssertionError(
            f"{title}: the output carries no gradient (fn detached it, or computed it outside "
            "torch); likely cause: numpy / .item() / .detach() inside fn"
        )
    v = torch.tensor(rng.normal(0.0, 1.0, (4, 6)), dtype=torch.float64)
    (got,) = torch.autograd.grad((p * v.to(device)).sum(), x)
    got = got.cpu()
    cpu_kw = {k: (t.cpu() if isinstance(t, torch.Tensor) else t) for k, t in kw.items()}
    expected = torch.einsum("ri,rij->rj", v, jacobian(spec.name, x.detach().cpu(), -1, **cpu_kw))
    close = torch.isclose(got, expected, atol=atol, rtol=rtol).all(-1)
    if close.all():
        return
    r = int((~close).nonzero()[0, 0])
    if got[r].isnan().any() and values[r].min() == -math.inf:
        cause = (
            "NaN gradient in a row with a masked (-inf) entry: e.g. torch.where(mask, 0, f(x)) still "
            "back-propagates f's NaN; mask the input (masked_fill) before the operation instead"
        )
    else:
        cause = (
            "your backward differs from the Jacobian dp/dx (probcore.jacobian: e.g. softmax "
            "diag(p) - p p^T, sparsemax diag(s) - s s^T / |S| on the support S), scaled by 1/T"
        )
    raise AssertionError(
        f"{title}: row {r} of 4 (parameters {_shown(kw)}), v a random cotangent\n"
        f"  logits:        {_fmt(values[r])}\n  expected v^T J: {_fmt(expected[r].numpy())}\n"
        f"  got:           {_fmt(got[r].numpy())}\nlikely cause: {cause}"
    )


def _shown(kw: dict) -> str:
    shown = {k: v for k, v in kw.items() if k != "target"}
    return ", ".join(f"{k}={v!r}" for k, v in shown.items()) or "defaults"


def _fmt(row: np.ndarray) -> str:
    return np.array2string(np.asarray(row, dtype=np.float64), precision=6, max_line_width=10_000, threshold=12)
