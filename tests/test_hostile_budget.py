"""A budget for every run (issue 25): every page opened with every one of its own numeric URL
options at the largest value it accepts (explorer.classroom.LESSON_PAGES lists them with their ranges),
the logits at their largest n (a random preset of N_MAX classes) and Taylor at its largest order,
must run within RUN_CPU_S of CPU. Measured as this process's CPU time (time.process_time; AppTest
runs the script in a thread of this process), so the other jobs of a shared machine do not count;
the page is run once first (imports, first figures) and the budget applies to the next run, as a
student's step after the page has been opened."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.session import state
from probcore._validate import MAX_ORDER
from views import registry

LESSON_PAGES = {page: registry.PAGES[page] for page in registry.lesson_pages()}

APP = str(Path(__file__).resolve().parents[1] / "app.py")
RUN_CPU_S = 2.0


def largest(page: str) -> dict[str, str]:
    """The page's numeric options at their upper bound (ints and floats with a high)."""
    out = {}
    for option in LESSON_PAGES[page].options:
        if option.kind in ("int", "float") and option.high is not None and option.key != "check_row":
            out[option.key] = str(int(option.high) if option.kind == "int" else option.high)
    return out


@pytest.mark.parametrize("page", list(LESSON_PAGES))
def test_every_page_at_its_largest_options_runs_within_the_budget(page):
    params = {"preset": "random", "n": str(state.N_MAX), "order": str(MAX_ORDER), **largest(page)}
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params)
    at.run()
    if LESSON_PAGES[page].script != registry.PAGES["compare"].script:
        at.switch_page(LESSON_PAGES[page].script).run()
    assert not at.exception, [e.value for e in at.exception]
    start = time.process_time()
    at.run()
    cpu = time.process_time() - start
    assert not at.exception, [e.value for e in at.exception]
    assert cpu < RUN_CPU_S, (page, params, f"{cpu:.2f} s")
