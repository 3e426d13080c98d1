"""Serving a class: the bounded job queue (identical runs computed once, positions, the bound),
the per-session rerun limit, and the real thing: workers behind HAProxy driven by
bench/load_client.py's protocol client (a slider step reaches the server and the URL, an upload
gets its verdict, Run gets its result, an oversized upload is refused), a short class, and a
worker killed mid-class whose students are served again by the other worker with their URL."""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
import os
import random
import signal
import socket
import sys
import threading
import time
import urllib.parse

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Common_pb2 import FileURLsRequest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from bench import bench_load as load
from bench.load_client import PAGES, Action, Page, Report, Student
from explorer.serving.jobs import NICE, ChildProcess, JobQueue, QueueFull, train_histories
from serve.cluster import HAPROXY, Cluster, haproxy_config

pytestmark = pytest.mark.slow  # served workers behind HAProxy, job processes


# ---------------------------------------------------------------- the queue ----


def test_identical_runs_compute_once_and_everyone_gets_the_result():
    q = JobQueue(threads=1)
    calls = []

    def train(progress):
        calls.append(1)
        time.sleep(0.2)
        progress(1.0, step=1)
        return {"history": [1, 2, 3]}

    jobs, barrier = [], threading.Barrier(30)

    def press():
        barrier.wait()
        jobs.append(q.submit(("demo", 0), train))

    threads = [threading.Thread(target=press) for _ in range(30)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(job.done.wait(10) for job in jobs)
    assert len(calls) == 1 and q.stats()["computed"] == 1
    assert len({id(job) for job in jobs}) == 1 and jobs[0].result == {"history": [1, 2, 3]}
    assert q.submit(("demo", 0), train) is jobs[0]  # a later identical press: the kept result
    assert q.submit(("demo", 0), train, reuse_finished=False) is not jobs[0]  # a measurement: anew


def test_distinct_runs_queue_in_order_with_positions_and_a_bound():
    q = JobQueue(threads=1, max_pending=3)
    release = threading.Event()
    order = []

    def blocked(name):
        def fn(progress):
            release.wait(10)
            order.append(name)
            return name

        return fn

    first = q.submit("a", blocked("a"))
    deadline = time.monotonic() + 5
    while first.started is None and time.monotonic() < deadline:
        time.sleep(0.01)
    waiting = [q.submit(k, blocked(k)) for k in ("b", "c", "d")]
    assert q.position(first) == 0
    assert [q.position(j) for j in waiting] == [1, 2, 3]  # runs ahead, the running one included
    with pytest.raises(QueueFull):
        q.submit("e", blocked("e"))
    assert q.submit("c", blocked("c")) is waiting[1]  # identical to a queued run: joins it
    release.set()
    assert all(j.done.wait(10) for j in [first, *waiting])
    assert order == ["a", "b", "c", "d"]


def test_a_failed_run_reaches_its_followers_and_is_not_kept():
    q = JobQueue(threads=1)

    def bad(progress):
        raise ValueError("steps must be >= 0")

    job = q.submit("x", bad)
    assert job.done.wait(10) and isinstance(job.error, ValueError)
    assert q.submit("x", bad) is not job  # retried, not served from a failure


def job_priority(progress):
    progress(0.5, half=True)
    return os.getpid(), os.nice(0), "torch._dynamo" in sys.modules


def test_the_job_process_runs_apart_at_lower_priority_and_comes_back_after_a_crash():
    q = JobQueue(threads=1, runner=ChildProcess)
    job = q.submit("p", job_priority)
    assert job.done.wait(120), "the job process did not answer"
    pid, nice, dynamo_imported = job.result
    assert pid != os.getpid() and nice == os.nice(0) + NICE  # its own process (own GIL), niced
    assert dynamo_imported  # torch.optim's lazy import of torch._dynamo was paid at start-up, not by a first run
    os.kill(pid, signal.SIGKILL)  # a crashed job process: the next job gets a new one
    time.sleep(0.5)
    again = q.submit("q", job_priority)
    assert again.done.wait(120) and again.error is None and again.result[0] != pid
    progress = q.submit("r", functools.partial(train_histories, 3, 5, 2, 0, 5))
    assert progress.done.wait(120)
    assert progress.error is None and progress.detail == {"loss": "entmax", "pretrained": True, "step": 3, "steps": 3}
    assert len(progress.result[("entmax", True)]["loss"]) == 4 and progress.fraction == 1.0


# ---------------------------------------------------------------- the rerun limit ----


def flooded_page():
    import streamlit as st

    from explorer.serving import guard

    guard.limit_reruns()
    st.write("page drawn")


def test_a_flood_of_reruns_is_refused_with_a_message_and_the_budget_refills():
    at = AppTest.from_function(flooded_page, default_timeout=30)
    refused = 0
    for _ in range(45):
        at.run()
        refused += any("Too many updates" in w.value for w in at.warning)
    assert refused >= 10  # 30 at once, then about 5 a second
    assert not any(m.value == "page drawn" for m in at.markdown) or refused < 45
    at.session_state["_rerun_budget"] = (0.0, time.monotonic() - 1.0)  # a second of quiet: 5 runs back
    at.run()
    assert not at.warning and any(m.value == "page drawn" for m in at.markdown)


FRAGMENT_APP = """
import streamlit as st

from explorer.drawing import ui
from explorer.serving import guard

guard.RATE, guard.BURST = 1.0, 5.0  # the budget of this test app: below the pace of a worker answering in a loop
guard.limit_reruns()


@ui.fragment
def part():
    st.slider("x", 0, 1000, key="flood_x")
    st.write("part drawn")


part()
"""


def test_fragment_reruns_spend_the_same_budget_a_flood_is_refused_a_normal_pace_never(tmp_path):
    """Fragment reruns sent in a loop as fast as a real worker answers (the protocol client): refused
    with the warning once the burst is spent; after a pause, changes at 2/3 of RATE are never refused.
    (The test app's budget is 1 run a second, burst 5: the loop beats it on a loaded machine too.)"""
    app = tmp_path / "fragment_app.py"
    app.write_text(FRAGMENT_APP)
    with Cluster(workers=1, proxy=False, script=app) as c:

        async def go():
            s = Student(c.worker_url(0), Page("", "", 1, ()), random.Random(0), Report(), time.monotonic)
            await s.open()
            assert (await s.rerun())[0]
            wid, w = s.find("flood_x")
            assert w.fragment_id  # the slider lives in the fragment: its change reruns only that

            async def change(value: int) -> bool:
                s.states[wid] = WidgetState(id=wid)
                s.states[wid].double_array_value.data.append(value)
                ok, why = await s.rerun(fragment_id=w.fragment_id)
                refused = any("Too many updates" in text for text in s.alerts)
                assert ok != refused and (ok or why == "refused: too many reruns"), (
                    why
                )  # a refused run is a failed step
                return refused

            served = 0
            while not await change(served + 1):
                served += 1
                assert served < 60, "60 fragment reruns in a loop, none refused"
            assert served >= 3  # the burst (5, less the initial full run) was served first
            await asyncio.sleep(3.0)  # the budget refills
            paced = []
            for value in range(6):
                paced.append(await change(500 + value))
                await asyncio.sleep(1.5)
            assert not any(paced), paced
            await s.close()

        run(go())


# ---------------------------------------------------------------- behind the proxy ----


def test_haproxy_config_is_sticky_checks_health_and_redispatches(tmp_path):
    text = haproxy_config(8501, ["127.0.0.1:9001", "10.0.0.7:8601"], "0.0.0.0")
    assert "bind 0.0.0.0:8501" in text
    assert "server w1 127.0.0.1:9001 cookie w1" in text and "server w2 10.0.0.7:8601 cookie w2" in text
    assert "cookie PROBCORE_WORKER insert" in text and "option redispatch" in text
    assert "option httpchk GET /_stcore/health" in text
    (tmp_path / "h.cfg").write_text(text)
    import subprocess

    subprocess.run([HAPROXY, "-c", "-q", "-f", str(tmp_path / "h.cfg")], check=True)


def test_a_worker_runs_no_full_garbage_collection_after_each_script_run():
    """runner.postScriptGC is off in the project's .streamlit/config.toml, as Streamlit reads it in
    the repository: a full collection after every run walked all the sessions' objects, half of a
    busy worker's Python time (bench/results/load.md)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "from streamlit import config; config.get_config_options(force_reparse=True); "
        "print(config.get_option('runner.postScriptGC'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[1],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out.strip() == "False"


@pytest.fixture(scope="module")
def cluster():
    with Cluster(workers=2) as c:
        yield c


def test_workers_and_their_job_processes_compute_on_one_thread(cluster):
    """A worker serves many sessions: a second OpenMP / BLAS thread per operation would only spin
    against the other workers (serve.cluster.ONE_THREAD; the job process inherits the worker's
    environment)."""
    for proc in cluster.workers:
        environ = set(open(f"/proc/{proc.pid}/environ", "rb").read().split(b"\0"))
        assert {b"OMP_NUM_THREADS=1", b"OPENBLAS_NUM_THREADS=1", b"MKL_NUM_THREADS=1"} <= environ


def student(cluster, path: str, link: str = "") -> Student:
    page = next(p for p in PAGES if p.path == path)
    page = Page(page.path, link, page.weight, page.actions)
    return Student(cluster.url, page, random.Random(0), Report(), time.monotonic)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 240))


def test_protocol_client_drives_the_real_server(cluster):
    async def go():
        s = student(cluster, "perturb", "preset=two_tied")  # a topic page: its Logits expander opens open
        await s.open()
        assert (await s.rerun()) == (True, "")
        assert s.session_id and s.page_hash and s.cookies.get("PROBCORE_WORKER") in ("w1", "w2")
        assert "preset=two_tied" in s.query  # the shared link's state came back in the URL
        wid, w = s.find("x_2")
        assert w.kind == "slider"
        s.states[wid] = WidgetState(id=wid)
        s.states[wid].double_array_value.data.append(4.5)
        assert (await s.rerun()) == (True, "")
        assert "logits=" in s.query and "4.5" in urllib.parse.unquote(s.query)  # the server took the value
        assert (await s.act(Action("page", "check")))[0]
        assert s.find("check_source") is not None
        await s.close()

    run(go())


def test_a_release_of_the_live_view_is_one_state_commit_the_server_takes(cluster):
    """bench_load's release, as live_core.js sends it (the live view's json_value {"state": {logits,
    params, seq}}, then a rerun of its fragment): the logit and the parameter reach the URL."""

    async def go():
        s = student(cluster, "")
        await s.open()
        assert (await s.rerun()) == (True, "")
        wid, w, data = s.live_view()
        assert w.kind == "bidi_component" and w.fragment_id and data["logits"] == [1.2, 0.3, -0.5]
        assert (await s.act(Action("release", "x_1"))) == (True, "")
        sent = json.loads(s.states[wid].json_value)["state"]
        assert sent["seq"] == 1 and sent["logits"][0] == 1.2 and sent["logits"][2] == -0.5
        assert f"{sent['logits'][1]:.6g}" in urllib.parse.unquote(s.query), s.query
        assert s.live_view()[2]["seq"] == 1  # the server hands the release's number back
        assert (await s.act(Action("release", "temperature"))) == (True, "")
        sent = json.loads(s.states[wid].json_value)["state"]
        assert sent["seq"] == 2 and f"temperature={sent['params']['temperature']:.10g}" in s.query, s.query
        await s.close()

    run(go())


def test_upload_gets_its_verdict_and_an_oversized_upload_is_refused(cluster):
    async def go():
        s = student(cluster, "check")
        await s.open()
        assert (await s.rerun())[0]
        assert (await s.act(Action("choice", "check_source", values=(1,))))[0]
        assert s.find("check_logits_file") is not None
        ok, why = await s.upload(("check_logits_file", "check_probs_file"))
        assert ok, why
        assert s.find("check_row") is not None  # drawn only once both files gave verdicts
        # 65 MiB: more than server.maxUploadSize = 64
        await s.send(
            BackMsg(
                file_urls_request=FileURLsRequest(request_id="big", file_names=["big.csv"], session_id=s.session_id)
            )
        )
        assert (await s.until_finished(30))[0]
        url = urllib.parse.urlsplit(cluster.url)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        body = (
            b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\n\r\n'
            + b"0" * (65 * 2**20)
            + b"\r\n--b--\r\n"
        )
        cookie = "; ".join(f"{k}={v}" for k, v in s.cookies.items())
        try:
            conn.request(
                "PUT",
                s.file_urls.file_urls[0].upload_url,
                body=body,
                headers={
                    "Cookie": cookie,
                    "X-Xsrftoken": s.cookies["_streamlit_xsrf"],
                    "Content-Type": "multipart/form-data; boundary=b",
                },
            )
            status = conn.getresponse().status
        except (ConnectionError, http.client.HTTPException):
            status = 413  # refused before the body was read
        finally:
            conn.close()
        assert status == 413
        await s.close()

    run(go())


def test_run_on_the_training_demo_returns_its_result(cluster):
    async def go():
        s = student(cluster, "overconfidence", "oc_steps=10&oc_classes=5")
        await s.open()
        assert (await s.rerun())[0]
        ok, why = await s.act(Action("button", "oc_run"))
        assert ok, why
        assert s.drawn.get("plotly_chart") == 5 and s.drawn.get("dataframe") == 1  # the bound + the run's four
        await s.close()

    run(go())


def test_a_stuck_client_does_not_hold_the_others(cluster):
    """A socket that sends half a request and stalls, and a session that never reads its
    messages: another student on the same workers still gets every step served."""
    url = urllib.parse.urlsplit(cluster.url)

    async def go():
        stalled = [socket.create_connection((url.hostname, url.port)) for _ in range(2)]
        for sock in stalled:
            sock.sendall(b"GET /_stcore/health HTTP/1.1\r\nHost: x\r\n")  # ... and nothing more
        stuck = [student(cluster, "") for _ in range(2)]
        for s in stuck:
            await s.open()
            s.stop_reading()  # never reads again: the server's sends to it back up
            await s.send(BackMsg(rerun_script=ClientState(query_string="", page_name="")))
        s = student(cluster, "perturb", "preset=random")  # a topic page: its logit sliders are drawn
        await s.open()
        assert (await s.rerun())[0]
        for value in (1.0, -2.0, 3.5):
            wid, _ = s.find("x_1")
            s.states[wid] = WidgetState(id=wid)
            s.states[wid].double_array_value.data.append(value)
            assert (await s.rerun()) == (True, ""), value
        await s.close()
        for s_ in stuck:
            await s_.ws.close()
        for sock in stalled:
            sock.close()

    run(go())


def test_short_class_and_a_killed_worker_whose_students_come_back(cluster):
    """10 students, ~24 s, worker 1 killed at 12 s: every student it served is served again, with its URL."""
    args = load.argparse.Namespace(
        students=10,
        seconds=24.0,
        workers=2,
        step_every=2.0,
        kill_at=12.0,
        burst=0,
        burst_distinct=False,
        seed=1,
        app="explorer",
    )
    result = run(load.the_class(args, cluster.url, cluster))
    assert result["steps"] >= 1, result  # the class ran (how fast is bench_load's business, not a test's)
    assert not result["missing_widgets"], result["missing_widgets"]  # every action of the mix found its widget
    assert result["sessions_lost"] == 0, result["error_samples"]
    on_killed = [n for first, n in zip(result["first_worker"], result["reconnected"]) if first == "w1"]
    assert on_killed and all(n >= 1 for n in on_killed)  # each of its students reconnected through the proxy
    assert result["reconnects"]["restored_url"] == result["reconnects"]["count"]
    in_flight = [e for e in result["error_samples"] if "connection lost in flight" not in e]
    assert not in_flight, in_flight  # the only errors: steps in flight when the worker died
