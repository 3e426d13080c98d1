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

pytestmark = pytest.mark.slow  # whole pages under AppTest at their largest options, and a served worker

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


HEAVIEST = "vocab"  # the slowest page at its largest options (--durations of the test above: 17 s)
OTHER_STEP_S = 0.5  # another session's step while the heaviest page runs, beyond the step's own time


STEP_EVERY_S = 0.3  # a student's pace, under the session's rerun guard (guard.RATE = 5 a second)


def _compare_step(at: AppTest, k: int, due: float) -> float:
    """A Compare slider step meant to start at ``due`` (time.perf_counter): seconds from then until its
    run ends, so a step delayed in starting (the GIL held by another session) counts its wait too."""
    time.sleep(max(0.0, due - time.perf_counter()))
    at.slider(key="x_0").set_value(round(-2 + 0.25 * (k % 16), 2)).run()
    return time.perf_counter() - due


def _paced_steps(at: AppTest, until) -> list[float]:
    """Steps every STEP_EVERY_S (at least 8) until ``until()``; their times from when each was due."""
    times, due = [], time.perf_counter()
    while (len(times) < 8 or not until()) and len(times) < 400:
        times.append(_compare_step(at, len(times), due))
        due = max(due + STEP_EVERY_S, time.perf_counter())
    return times


def test_another_sessions_step_meanwhile_stays_quick():
    """While one session reruns the heaviest page at its largest options, another session's Compare
    slider step, repeated for the whole of one heavy run: its slowest wall time (from when it was due)
    stays under OTHER_STEP_S plus the allowance for this shared 2-core machine: the same step's median
    with no heavy session, measured beside it (0.05-0.08 s here). A page run holding the GIL for 1.7 s
    (math.factorial(200000) added to the vocab page) made the slowest step 0.64-0.81 s: refused.
    Each heavy run takes a new seed (nothing cached): about 8 s of wall time here (2 shared cores).
    Wall time, not CPU: what the other student waits for is the GIL and the worker, which the heavy
    run holds; the baseline taken in the same test absorbs the rest of the machine's load."""
    import statistics
    import threading

    heavy = AppTest.from_file(APP, default_timeout=120)
    heavy.query_params.update({"preset": "random", "n": str(state.N_MAX), "order": str(MAX_ORDER), **largest(HEAVIEST)})
    heavy.run()
    heavy.switch_page(LESSON_PAGES[HEAVIEST].script).run()
    assert not heavy.exception, [e.value for e in heavy.exception]
    light = AppTest.from_file(APP, default_timeout=120)
    light.run()
    _paced_steps(light, lambda: True)  # warm: imports, first figures
    alone = statistics.median(_paced_steps(light, lambda: True))

    stop, heavy_runs = threading.Event(), []

    def rerun_heavy():  # a new seed each run: nothing cached, the full cost every time
        while not stop.is_set():
            start = time.perf_counter()
            heavy.number_input(key="vocab_seed").set_value(2**31 - 2 - len(heavy_runs)).run()
            heavy_runs.append(time.perf_counter() - start)

    thread = threading.Thread(target=rerun_heavy, daemon=True)
    thread.start()
    try:
        time.sleep(0.2)
        meanwhile = _paced_steps(light, lambda: bool(heavy_runs))  # for the whole of the first heavy run
    finally:
        stop.set()
        thread.join(180)
    assert heavy_runs and not heavy.exception and not light.exception
    during = statistics.median(meanwhile)
    print(
        f"compare step alone {alone:.3f} s, meanwhile median {during:.3f} s max {max(meanwhile):.3f} s; "
        f"{HEAVIEST} runs {[round(s, 2) for s in heavy_runs]}"
    )
    assert len(meanwhile) >= 8, meanwhile
    assert max(meanwhile) < alone + OTHER_STEP_S, (alone, meanwhile, heavy_runs)
