"""probcore.testing.check_implementation: probcore's own mappings pass; typical bugs fail with the case and cause named.

The buggy implementations are the Check page's examples (views/check/compute.py, numpy, wrapped to
torch here) and torch functions written here from the formulas, independently of probcore."""

import math

import numpy as np
import pytest
import torch

from conftest import CASES as MAPPING_CASES
from probcore.registry import get_mapping
from probcore.testing import CASES, check_implementation
from views.check import compute as check_compute

DETERMINISTIC = [cid for cid, (name, _) in MAPPING_CASES.items() if not get_mapping(name).stochastic]


def rowwise(numpy_fn):
    """A torch fn(x, dim, temperature) applying a numpy function of (z, temperature) to each row
    (float64 inside, x's dtype out; no autograd)."""

    def fn(x, dim=-1, temperature=1.0):
        rows = x.detach().movedim(dim, -1)
        flat = rows.reshape(-1, rows.shape[-1]).double().numpy()
        out = np.stack([numpy_fn(row, temperature) for row in flat])
        return torch.from_numpy(out).reshape(rows.shape).movedim(-1, dim).to(x.dtype)

    return fn


def failure(fn, mapping, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        check_implementation(fn, mapping, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("case_id", DETERMINISTIC)
def test_probcore_mappings_pass(case_id):
    name, params = MAPPING_CASES[case_id]
    ran = check_implementation(get_mapping(name).forward, name, **params)
    has_temperature = "temperature" in {p.name for p in get_mapping(name).params}
    expected = set(CASES) - ({"small_temperature"} if "beta" in params or not has_temperature else set())
    assert set(ran) == expected


def test_one_line_with_a_plain_function():
    """The documented use: a function of (x, dim) only gets no temperature case."""

    def my_sparsemax(x, dim=-1):
        return get_mapping("sparsemax").forward(x, dim=dim)

    assert "small_temperature" not in check_implementation(my_sparsemax, "sparsemax")


# ---------------------------------------------------------------- the Check page's examples


def test_example_correct_numpy_implementations_pass_but_carry_no_gradient():
    ran = check_implementation(rowwise(check_compute.user_softmax), "softmax", temperature=0.5, skip=("gradients",))
    assert "large_float16" in ran and "small_temperature" in ran
    message = failure(rowwise(check_compute.user_softmax), "softmax")
    assert "case 'gradients'" in message and "carries no gradient" in message


def test_example_no_max_subtraction():
    message = failure(rowwise(check_compute.user_softmax_no_max), "softmax")
    assert "case 'large_float32'" in message
    assert "without subtracting max x" in message and "exp overflows" in message


def test_example_forgotten_temperature():
    message = failure(rowwise(check_compute.user_softmax_forgot_temperature), "softmax", temperature=2.0)
    assert "case 'values'" in message
    assert "your row matches T = 1: T = 2 was not applied" in message


def test_example_log_softmax():
    message = failure(rowwise(check_compute.user_log_softmax), "softmax")
    assert "case 'values'" in message and "your output is log p" in message


def test_example_sparsemax_off_by_one():
    message = failure(rowwise(check_compute.user_sparsemax_off_by_one), "sparsemax")
    assert "case 'values'" in message
    assert "threshold tau computed from the top" in message and "support size is off by one" in message


def test_example_sparsemax_breaks_on_a_fully_masked_row():
    """The correct-looking numpy sparsemax finds no support on an all -inf row."""
    message = failure(rowwise(check_compute.user_sparsemax), "sparsemax", skip=("gradients",))
    assert "case 'fully_masked'" in message and "fn raised IndexError" in message
    check_implementation(rowwise(check_compute.user_sparsemax), "sparsemax", skip=("gradients", "fully_masked"))


# ---------------------------------------------------------------- torch bugs


def softmax_textbook(x, dim=-1, temperature=1.0):
    e = torch.exp(x / temperature)
    return e / e.sum(dim, keepdim=True)


def softmax_in_x_dtype(x, dim=-1, temperature=1.0):
    """Max-subtracted, but all arithmetic in x's dtype: x / T rounds to float16's spacing (8 at 1e4)."""
    z = x / temperature
    e = torch.exp(z - z.amax(dim, keepdim=True))
    return e / e.sum(dim, keepdim=True)


def softmax_last_dim(x, dim=-1, temperature=1.0):
    return torch.softmax(x / temperature, -1)


def softmax_float32_out(x, dim=-1, temperature=1.0):
    """Computes float16 in float32 and forgets to cast back."""
    if x.dtype == torch.float16:
        x = x.float()
    return torch.softmax(x / temperature, dim)


def softmax_uniform_when_masked(x, dim=-1, temperature=1.0):
    p = torch.softmax(x / temperature, dim)
    return torch.where(p.isnan(), torch.full_like(p, 1 / x.shape[dim]), p)


def top2_with_ties(x, dim=-1, k=2, temperature=1.0):
    """top-k by comparing with the k-th largest value: keeps every entry tied with it."""
    z = (x / temperature).movedim(dim, -1)
    kth = z.topk(k, -1).values[..., -1:]
    return torch.softmax(z.masked_fill(z < kth, -math.inf), -1).movedim(-1, dim)


def taylor_unmasked(x, dim=-1, order=2, temperature=1.0):
    z = x / temperature
    f = 1 + z + z * z / 2
    return f / f.sum(dim, keepdim=True)


class _SparsemaxWrongGrad(torch.autograd.Function):
    """Exact sparsemax forward; the backward forgets the mean over the support (g on S instead of
    g - mean_S g)."""

    @staticmethod
    def forward(ctx, z):
        p = get_mapping("sparsemax").forward(z, dim=-1)
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, g):
        (p,) = ctx.saved_tensors
        return torch.where(p > 0, g, torch.zeros_like(g))


def sparsemax_wrong_grad(x, dim=-1):
    return _SparsemaxWrongGrad.apply(x.movedim(dim, -1)).movedim(-1, dim)


def sparsemax_crashes(x, dim=-1):
    raise RuntimeError("not implemented for this shape")


@pytest.mark.parametrize(
    "fn, mapping, params, case_id, cause",
    [
        (softmax_textbook, "softmax", {}, "large_float32", "without subtracting max x"),
        (softmax_in_x_dtype, "softmax", {"temperature": 0.7}, "large_float16", "compute in float32 inside"),
        (
            softmax_last_dim,
            "softmax",
            {},
            "dim",
            "fn mapped the last dimension, not dim=1; likely cause: dim is ignored",
        ),
        (softmax_float32_out, "softmax", {}, "large_float16", "returned torch.float32 for torch.float16 input"),
        (softmax_uniform_when_masked, "softmax", {}, "fully_masked", "row 1 is entirely -inf and fn returned"),
        (top2_with_ties, "sparse_softmax", {"k": 2}, "ties", "equal logits must get equal probability"),
        (taylor_unmasked, "taylor_softmax", {"order": 2}, "mask", "masked (-inf) entries must get exactly 0"),
        (sparsemax_wrong_grad, "sparsemax", {}, "gradients", "backward differs from the Jacobian"),
        (sparsemax_crashes, "sparsemax", {}, "values", "fn raised RuntimeError: not implemented"),
    ],
)
def test_torch_bugs_fail_with_case_and_cause(fn, mapping, params, case_id, cause):
    message = failure(fn, mapping, **params)
    assert f"case {case_id!r} ({CASES[case_id]}) failed" in message
    assert cause in message


def test_failure_message_shows_the_row():
    message = failure(softmax_textbook, "softmax")
    assert "logits:" in message and "expected:" in message and "got:" in message and "nan" in message


def test_small_temperature_case_runs_with_the_sign_of_t():
    """A function that clips |T| from below (a common 'safety' guard) fails only near T = 0."""

    def clipped(x, dim=-1, temperature=1.0):
        t = math.copysign(max(abs(temperature), 0.05), temperature)
        return get_mapping("sparsemax").forward(x, dim=dim, temperature=t)

    message = failure(clipped, "sparsemax", temperature=-0.5)
    assert "case 'small_temperature'" in message and "temperature=-0.001" in message


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mapping": "softmx"}, "mapping must be one of"),
        ({"mapping": "gumbel_softmax"}, "deterministic"),
        ({"mapping": "softmax", "skip": ("value",)}, "skip must be a collection of case ids"),
        ({"mapping": "softmax", "skip": "values"}, "skip must be a collection of case ids"),
        ({"mapping": "softmax", "temperature": 0}, "temperature must be finite and non-zero"),
        ({"mapping": "softmax", "alpha": 1.5}, "unknown parameter 'alpha'"),
        ({"mapping": "am_softmax", "target": 0}, "target is chosen by the kit"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        check_implementation(torch.softmax, **kwargs)


def test_low_precision_case_does_not_blame_the_temperature():
    """float16 arithmetic at T = 0.7 looks like another temperature (rounded x / T); the kit says float32 inside."""
    message = failure(softmax_in_x_dtype, "softmax", temperature=0.7)
    assert "case 'large_float16'" in message
    assert "likely cause: compute in float32 inside" in message and "T'" not in message


def test_ties_message_shows_the_row_as_given():
    message = failure(top2_with_ties, "sparse_softmax", k=2)
    assert "logits:   [ 1.5  1.5  0.2 -0.3  1.5  0.2 -1. ]" in message


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("case_id", ["softmax_T", "sparsemax", "entmax_1.3", "am_softmax"])
def test_probcore_mappings_pass_on_cuda(case_id):
    name, params = MAPPING_CASES[case_id]
    check_implementation(get_mapping(name).forward, name, device="cuda", **params)


def test_cuda_bug_found_on_cuda_too():
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    message = failure(softmax_textbook, "softmax", device="cuda")
    assert "case 'large_float32'" in message and "without subtracting max x" in message


def _naive_softmax(x, dim=-1, temperature=1.0):
    """exp(x / T) / sum exp(x / T) in x's dtype: no max-subtraction."""
    e = torch.exp(x / temperature)
    return e / e.sum(dim, keepdim=True)


def _sparsemax_same_dtype(x, dim=-1, temperature=1.0):
    """sparsemax by sort and cumsum in x's own dtype (float16 sums overflow), no max-subtraction."""
    z = (x / temperature).movedim(dim, -1)
    s, _ = z.sort(-1, descending=True)
    k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype)
    cs = s.cumsum(-1)
    support = (1 + k * s > cs).sum(-1, keepdim=True).clamp(min=1)
    tau = (cs.gather(-1, support - 1) - 1) / support.to(z.dtype)
    return torch.clamp(z - tau, min=0).movedim(-1, dim)


ALL_BUT = {case_id: tuple(c for c in CASES if c != case_id) for case_id in CASES}


@pytest.mark.parametrize(
    "case_id, dtype, limit, wrong",
    [
        ("large_float32", "float32", "88.7", "709.8"),
        ("large_float16", "float16", "11.1", "709.8"),
    ],
)
def test_the_kit_names_the_overflow_of_the_cases_dtype(case_id, dtype, limit, wrong):
    message = failure(_naive_softmax, "softmax", skip=ALL_BUT[case_id])
    cause = message.split("likely cause: ", 1)[1]
    assert f"in {dtype} without subtracting max x" in cause and f"|x| = {limit}" in cause
    assert wrong not in cause and "float64" not in cause


def test_the_kit_blames_no_exp_for_a_mapping_without_exp():
    message = failure(_sparsemax_same_dtype, "sparsemax", skip=ALL_BUT["large_float16"])
    cause = message.split("likely cause: ", 1)[1]
    assert "exp" not in cause and "float16" in cause and "65504" in cause, cause


@pytest.mark.parametrize(
    "mapping, params, has_exp",
    [
        ("softmax", {}, True),
        ("sparse_softmax", {"k": 2}, True),
        ("entmax", {"alpha": 1.0}, True),
        ("sparsemax", {}, False),
        ("entmax15", {}, False),
        ("entmax", {"alpha": 1.3}, False),
        ("taylor_softmax", {}, False),
    ],
)
def test_the_large_cases_usual_culprit_mentions_exp_only_where_the_mapping_has_one(mapping, params, has_exp):
    from probcore.testing import _hint

    for case_id in ("large_float32", "large_float16"):
        assert ("exp" in _hint(mapping, params, case_id)) == has_exp
