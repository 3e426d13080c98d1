"""Hostile input, issue 25 finding 1 (and 12's Check-page half): Taylor softmax's order is bounded
(probcore._validate.MAX_ORDER, the largest even k whose 1/k! is a normal float64) and computed
without huge integers, so no URL, widget or lesson can make one run compute math.factorial of a
huge number. Costs are the test process's CPU time (time.process_time: AppTest runs the script in
a thread of this process), so other jobs on a shared machine do not count."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

import probcore.functional as F
import probcore.reference as R
from probcore._validate import MAX_ORDER, check_order
from views import registry

APP = str(Path(__file__).resolve().parents[1] / "app.py")
RUN_CPU_S = 2.0  # the budget of one run of the app


def run_cpu(at: AppTest) -> float:
    """Run ``at`` once; its CPU time in seconds."""
    start = time.process_time()
    at.run()
    return time.process_time() - start


@pytest.mark.parametrize("order", [MAX_ORDER + 2, 200, 1_000_000, 2**31 - 2])
def test_check_order_refuses_orders_beyond_the_float64_limit_at_once(order):
    start = time.process_time()
    with pytest.raises(ValueError, match=rf"order must be an even integer >= 2 and <= {MAX_ORDER}"):
        check_order(order)
    with pytest.raises(ValueError, match="order must"):
        F.taylor_softmax(torch.zeros(3), order=order)
    assert time.process_time() - start < 0.1


def test_the_largest_order_is_cheap_finite_and_matches_the_reference():
    x = torch.tensor([[1.2, 0.3, -0.5], [1e4, -3e3, 5.0], [-40.0, 0.0, 40.0]], dtype=torch.float64)
    start = time.process_time()
    p = F.taylor_softmax(x, order=MAX_ORDER)
    assert time.process_time() - start < 0.5
    assert torch.isfinite(p).all() and torch.allclose(p.sum(-1), torch.ones(3, dtype=torch.float64))
    for row, got in zip(x.numpy(), p.numpy()):
        np.testing.assert_allclose(R.taylor_softmax(row, order=MAX_ORDER), got, atol=1e-12)


@pytest.mark.parametrize("order", [22, 24, 100, MAX_ORDER])
def test_the_reference_has_no_integer_overflow_at_high_orders(order):
    """The numpy reference summed z**m / math.factorial(m): an array divided by an int over 2^63
    raised OverflowError from order 22 on (the Check page's traceback)."""
    x = np.array([1.2, 0.3, -0.5])
    expected = F.taylor_softmax(torch.tensor(x), order=order).numpy()
    np.testing.assert_allclose(R.taylor_softmax(x, order=order), expected, atol=1e-12)


@pytest.mark.parametrize("order", ["200", "1000000", "2147483646"])
def test_a_huge_order_in_the_url_gives_an_inline_message_within_the_budget(order):
    """Before: /?order=200 showed an OverflowError traceback, /?order=1000000 ran 12.4 s."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"order": order, "show": "taylor_softmax,softmax"})
    cpu = run_cpu(at)
    assert not at.exception, [e.value for e in at.exception]
    assert any("order" in w.value for w in [*at.error, *at.warning]), "expected an inline message"
    assert cpu < RUN_CPU_S, cpu


def test_the_largest_accepted_order_renders_every_core_page_within_the_budget():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"order": str(MAX_ORDER), "show": "taylor_softmax,softmax"})
    at.run()
    for page in (registry.PAGES[name].script for name in ("compare", "simplex", "jacobian", "loss", "sweeps")):
        at.switch_page(page)
        cpu = run_cpu(at)
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not at.error, (page, [e.value for e in at.error])
        assert cpu < RUN_CPU_S, (page, cpu)


@pytest.mark.parametrize("order", [22, MAX_ORDER, MAX_ORDER + 2, 1_000_000])
def test_the_check_page_takes_any_order_without_a_traceback(order):
    """Before: every even order >= 22 typed on the Check page gave an OverflowError traceback."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"check_mapping": "taylor_softmax", "check_order": str(order), "check_example": "none"})
    at.run()
    at.switch_page(registry.PAGES["check"].script).run()
    refused = any("order" in w.value for w in [*at.error, *at.warning])  # the URL's value: once
    at.text_area(key="check_logits_text").set_value("1.2, 0.3, -0.5")
    at.text_area(key="check_probs_text").set_value("0.6, 0.3, 0.1")
    cpu = run_cpu(at)
    assert not at.exception, [e.value for e in at.exception]
    assert refused == (order > MAX_ORDER)
    assert cpu < RUN_CPU_S, cpu
