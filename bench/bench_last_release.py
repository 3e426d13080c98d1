"""The last release under load (issue 21): trials of six quick ArrowRight presses on Compare's live
temperature (T 1 -> 1.3, as tests/test_e2e_live.py::test_the_last_release_wins_when_keys_outrun_the_server),
each in a new session, with ``--load`` busy loops beside them (at most ``--load-s`` seconds a batch, then
killed). Prints each trial (the URL's T, where each key press landed: ``lost`` counts the presses that went
to the page instead of the input) and how many ended with the URL at 1.3, with the load average.

    python bench/bench_last_release.py --trials 5 --batches 2 --load 3 --load-s 60
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.browser import ROOT, VIEWPORT, chromium, serve, settle  # noqa: E402

VIEW = "[data-live-view='compare']"
KEYS = """(() => {  // where each key press landed: the input's aria-label, or the element that had the focus
  window.__keys = [];
  document.addEventListener('keydown', (e) => window.__keys.push(e.target.dataset.param || e.target.tagName), true);
})();"""


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def busy_loops(count: int, seconds: int) -> list[subprocess.Popen]:
    """``count`` shell busy loops, each ended by timeout(1) after ``seconds`` at the latest."""
    return [
        subprocess.Popen(["timeout", str(seconds), "sh", "-c", "while :; do :; done"], start_new_session=True)
        for _ in range(count)
    ]


def stop(loops: list[subprocess.Popen]) -> None:
    for proc in loops:  # each its own process group: timeout(1) and its shell
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        proc.wait()


def trial(browser, url: str, wait_s: float) -> tuple[bool, str | None, int]:
    """Six presses in a new session: (URL at T = 1.3 within ``wait_s``, the URL's T, presses lost)."""
    page = browser.new_page(viewport=VIEWPORT)
    page.set_default_timeout(90_000)
    page.add_init_script(KEYS)
    try:
        page.goto(url)
        page.wait_for_selector(f"{VIEW}[data-values]", state="attached")
        settle(page)
        temperature = page.locator(f"{VIEW} input[data-param='temperature']")
        for _ in range(6):
            temperature.press("ArrowRight")
        try:
            page.wait_for_function(
                "() => new URL(location.href).searchParams.get('temperature') === '1.3'", timeout=wait_s * 1000
            )
            ok = True
        except Exception:  # playwright's TimeoutError: the URL did not reach 1.3
            ok = False
        final = page.evaluate("() => new URL(location.href).searchParams.get('temperature')")
        lost = sum(target != "temperature" for target in page.evaluate("() => window.__keys"))
        return ok, final, lost
    finally:
        page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=5, help="trials a batch (fewer if the batch's load ends)")
    parser.add_argument("--batches", type=int, default=2)
    parser.add_argument("--load", type=int, default=3, help="busy loops during a batch")
    parser.add_argument("--load-s", type=int, default=60, help="seconds of load a batch, at most")
    parser.add_argument("--wait-s", type=float, default=20.0, help="after the presses, how long to wait for T = 1.3")
    args = parser.parse_args()
    results = []
    with serve(ROOT / "artifacts" / "streamlit-last-release.log") as url, chromium(sync_playwright) as browser:
        trial(browser, url, args.wait_s)  # warm-up: the first render of a new server, not counted
        for batch in range(args.batches):
            loops = busy_loops(args.load, args.load_s)
            started = time.monotonic()
            try:
                for k in range(args.trials):
                    if args.load and time.monotonic() - started > args.load_s - 5:
                        break
                    ok, final, lost = trial(browser, url, args.wait_s)
                    results.append(ok)
                    print(f"batch {batch} trial {k}: URL T = {final}, presses lost {lost}, load {load_average()}")
            finally:
                stop(loops)
    print(f"{sum(results)}/{len(results)} trials ended with the URL at temperature=1.3 (load {load_average()})")


if __name__ == "__main__":
    main()
