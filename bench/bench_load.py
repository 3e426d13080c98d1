"""A class of simulated students against the explorer, speaking Streamlit's own protocol.

    python bench/bench_load.py --students 60 --seconds 120 --workers 2 [--json OUT]
        [--step-every 3] [--kill-at 60] [--burst 30 [--burst-distinct]] [--app floor] [--url http://host:port]
        [--groups 2]

``--groups G`` runs G groups of ``--workers`` workers each, as G machines would (serve/cluster.py
Groups: each group its own copy of the app and var/, one Redis shared by all, one HAProxy in front);
``--kill-at`` then kills group A's first worker. HAProxy (and, for groups, redis-server) come
from Debian: when one is missing the benchmark says how to install it.

Starts ``--workers`` Streamlit workers behind HAProxy (serve/cluster.py; or loads ``--url``, a
class already served), warms each worker up (one session visits every page, as the teacher
opening the app before the class), then each student does what a browser does, without a browser: GET
/_stcore/health through the proxy (the proxy's PROBCORE_WORKER cookie and Streamlit's XSRF cookie
come back), opens the websocket /_stcore/stream, sends a ``rerun_script`` BackMsg (streamlit.proto
ClientState: the page's URL path and the query string of a shared link, then the page's
page_script_hash, the widget states and, as the frontend, the hashes of the large elements it holds
so the server sends those as references), and reads ForwardMsgs until ``script_finished``. Every
``--step-every`` seconds (+-50 % jitter) it takes one step of its page (PAGES below):

- on a live page (explorer/live: Compare, Jacobian; Simplex until its view is live: the slider), a
  *release*: a drag is computed in the browser and the server hears only its end, one state commit
  of the live view, as live_core.js's ``setStateValue("state", {logits, params, seq})`` sends it
  (the element's WidgetState.json_value = ``{"state": {...}}``, then one rerun of the view's
  fragment carrying every widget state): a logit moved to a point of its handle's grid, or now and
  then a parameter (temperature: the page then reruns whole);
- on a topic page, a widget change the way the frontend sends it (a rerun carrying the widget
  states; a fragment rerun for a widget inside a fragment);
- Run pressed on the training demo, two CSV files uploaded on Check my numbers (file_urls_request
  BackMsg -> PUT /_stcore/upload_file/... -> rerun with the file_uploader state), or a move to
  another page.
A step's latency is from its request to ``script_finished`` (server-side: the browser's drawing is
not included). When its websocket closes (``--kill-at`` kills worker 1 at that second) the
student reconnects through the proxy as the frontend does (health, then the websocket with its
old session id) and asks for a rerun with its URL and widget states; it counts as restored when
that run succeeds and leaves its URL as it was. ``--burst K`` adds K students who open the
training demo and press Run at the same moment (at a third of the run), with identical settings
or (``--burst-distinct``) each its own seed; the workers share a fresh heavy-run store
(explorer/serving/runs.py) whose count of computations is reported: identical presses on any worker
compute once.

Widgets are found by key (Streamlit's element id ends with "-<key>") or else by label, and every
page and action is in PAGES below. Loopback only, bounded by --students and --seconds (a step
that takes longer than STEP_TIMEOUT_S counts as an error), stops everything by itself. Prints a
table and writes JSON: p50_s, p95_s, max_s (page steps), errors, sessions_lost, steps, runs (the
training presses), reconnects, rss_mb per worker (after warm-up, at the end, the largest).
Protocol facts from streamlit==1.67.0's proto/ and web/server/starlette/; the websocket is the
``websockets`` package Streamlit itself installs. ``--app floor`` runs the same class against
bench_explorer.py's one-slider one-chart app (every student moving its slider): the floor of this
machine under the same load, to read the explorer's figures against. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import io
import json
import os
import random
import sys
import tempfile
import time
import urllib.parse
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Common_pb2 import FileURLsRequest, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_explorer import FLOOR_APP  # noqa: E402
from explorer.i18n import EN  # noqa: E402
from explorer.serving.runs import ENV_URL as RUNS_URL, SharedRuns  # noqa: E402
from explorer.serving.runs_redis import RedisRuns  # noqa: E402
from views import registry  # noqa: E402
from serve import cluster as serving  # noqa: E402
from serve.cluster import ROOT, Cluster, Groups  # noqa: E402
from serve.redis_server import REDIS  # noqa: E402

STEP_TIMEOUT_S = 30.0  # a page step slower than this is an error
RUN_TIMEOUT_S = 300.0  # a training press (queue wait included)
RECOVER_LIMIT_S = 30.0  # a student not served again within this after losing its worker is lost
RAMP_S = 10.0  # students arrive over the first seconds of the class
LIVE_STEP = 0.05  # the live views' logit handles: explorer/live/static/live_core.js STEP
# A run the rerun guard (explorer/serving/guard.py) refuses: a warning instead of the page, an error here.
REFUSED = tuple(EN[key].split("{")[0] for key in ("guard.too_fast", "guard.too_fast_client"))
# Every simulated student comes from loopback, one address: the per-address rerun budget
# (explorer/serving/limits.py, 20 a second by default: about one worker's worth, for a school behind
# one NAT) would refuse the class's runs; the per-session budget still holds.
WORKER_ENV = {"PROBCORE_CLIENT_RERUN_RATE": "100000"}
CACHE_MAX_AGE = 2  # runs a cached message outlives its last use (the frontend's, global.maxCachedMessageAge)
FINISHED_OK = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


# ---------------------------------------------------------------- the class: pages and actions ----


@dataclass(frozen=True)
class Action:
    """One thing a student does on a page: ``kind`` in slider / number / choice / button / upload /
    page; ``target`` a widget key (or label), the keys of the two uploaders, or a page's URL path."""

    kind: str
    target: str | tuple[str, ...]
    weight: float = 1.0
    values: tuple = ()  # number: the values to pick from; choice: the option index to pick


@dataclass(frozen=True)
class Page:
    path: str  # URL path ("" = the default page)
    link: str  # query string of the shared link students open
    weight: float  # share of the class opening it
    actions: tuple[Action, ...]


ELSEWHERE = tuple(
    Action("page", registry.PAGES[name].url_path, 0.3)
    for name in ("compare", "simplex", "jacobian", "perturb", "margin", "overconfidence", "check")
)
# A step on a live page (explorer/live) is a release, one state commit of its live view (a logit, or
# now and then a parameter: a full page run follows); "release" falls back to the slider of the same
# key on a page whose view is not live yet. Topic pages: widget changes.
PAGES = (
    Page(
        registry.PAGES["compare"].url_path,
        "",
        4,
        (
            Action("release", "x_0", 3),
            Action("release", "x_2", 3),
            Action("release", "temperature", 0.5),
            Action("number", "w_target", 1, (0, 1, 2)),
            *ELSEWHERE,
        ),
    ),
    Page(registry.PAGES["simplex"].url_path, "", 1, (Action("release", "x_1", 3), *ELSEWHERE)),
    Page(registry.PAGES["jacobian"].url_path, "", 1, (Action("release", "x_1", 3), *ELSEWHERE)),
    Page(registry.PAGES["perturb"].url_path, "", 1, (Action("slider", "x_1", 3), *ELSEWHERE)),
    Page(
        registry.PAGES["margin"].url_path,
        "",
        1,
        (Action("slider", "margin_m", 2), Action("slider", "margin_angle", 1), *ELSEWHERE),
    ),
    Page(
        registry.PAGES["overconfidence"].url_path,
        "",
        2,
        (
            Action("button", "oc_run", 1),
            Action("number", "oc_eps", 2, (0.05, 0.1, 0.5, 1.0)),
            Action("number", "oc_seed", 0.5, (0, 1)),
            *ELSEWHERE,
        ),
    ),
    Page(
        registry.PAGES["check"].url_path,
        "",
        1.5,
        (
            Action("choice", "check_source", 1, (1,)),
            Action("upload", ("check_logits_file", "check_probs_file"), 2),
            Action("choice", "check_example", 1, (2, 3)),
            *ELSEWHERE,
        ),
    ),
)
FLOOR_PAGES = (Page("", "", 1, (Action("slider", "x_2", 1),)),)  # the yardstick app: one slider, one chart
UPLOAD_SOURCE = ("check_source", 1)  # the choice that shows the uploaders, and its option index
BURST_PAGE = registry.PAGES["overconfidence"].url_path
BURST_BUTTON = "oc_run"
BURST_SEED = "oc_seed"


def js_number(value: float) -> float | int:
    """A number as JSON.stringify writes it: an integral value without ".0"."""
    return int(value) if value.is_integer() else value


def upload_files(rng: random.Random) -> list[tuple[str, bytes]]:
    """A logits CSV (50 rows x 20) and the softmax probabilities of it, as a student's files."""
    x = np.random.default_rng(rng.randrange(2**31)).normal(0, 2, (50, 20))
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    out = []
    for name, a in (("logits.csv", x), ("probs.csv", p)):
        buf = io.StringIO()
        np.savetxt(buf, a, delimiter=",", fmt="%.9g")
        out.append((name, buf.getvalue().encode()))
    return out


# ---------------------------------------------------------------- one simulated browser ----


@dataclass
class Widget:
    kind: str  # the Element oneof name: slider, number_input, button, ...
    proto: object
    fragment_id: str


@dataclass
class Report:
    steps: list = field(default_factory=list)  # (action, seconds, ok, t_start)
    runs: list = field(default_factory=list)  # training presses: (seconds, ok)
    errors: list = field(default_factory=list)  # (t, what)
    reconnects: list = field(default_factory=list)  # (seconds to be served again, restored url)
    lost: bool = False
    worker: str = ""  # the worker serving it now (the proxy's cookie)
    workers: list = field(default_factory=list)  # every worker it was served by, in order
    missing: list = field(default_factory=list)  # widget actions whose widget was not on the page


class Lost(Exception):
    """The session could not be served again."""


class Student:
    def __init__(self, base: str, page: Page, rng: random.Random, report: Report, clock: Callable[[], float]):
        self.base, self.page, self.rng, self.report, self.clock = base, page, rng, report, clock
        self.cookies: dict[str, str] = {}
        self.session_id = ""
        self.page_hash = ""
        self.page_name = page.path
        self.query = page.link
        self.pages: dict[str, str] = {}  # url path -> page_script_hash (from the navigation message)
        self.widgets: dict[str, Widget] = {}
        self.states: dict[str, WidgetState] = {}  # what this browser holds: every value it has set
        self.ws = None
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.closed = asyncio.Event()
        self.reader: asyncio.Task | None = None
        self.file_urls = None  # the last file_urls_response
        self.drawn: dict[str, int] = {}  # element kinds of the last full run and how many
        self.alerts: list[str] = []  # texts of the last run's st.error / st.warning / st.info
        self.cache: dict[str, tuple[ForwardMsg, int]] = {}  # the frontend's message cache: hash -> (msg, run)
        self.full_runs = 0
        self.polls: dict[str, float] = {}  # fragment id -> seconds between its timer's reruns
        self.seq: dict[str, int] = {}  # live view id -> the last release's number

    # ---- transport
    def _http(self, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
        url = urllib.parse.urlsplit(self.base)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=15)
        try:
            cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            conn.request(
                method, path, body=body or None, headers={**({"Cookie": cookie} if cookie else {}), **(headers or {})}
            )
            response = conn.getresponse()
            self._take_cookies(response.headers.get_all("Set-Cookie") or [])
            return response.status, response.read()
        finally:
            conn.close()

    def _take_cookies(self, lines) -> None:
        for line in lines:
            name, _, value = line.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()

    async def open(self) -> None:
        """Health (cookies), then the websocket carrying the old session id as the frontend does."""
        status, body = await asyncio.to_thread(self._http, "GET", "/_stcore/health")
        if status != 200 or body != b"ok":
            raise OSError(f"health {status}")
        url = self.base.replace("http", "ws", 1) + "/_stcore/stream"
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        protocols = ["streamlit", self.cookies.get("_streamlit_xsrf", "-")] + (
            [self.session_id] if self.session_id else []
        )
        self.ws = await connect(
            url,
            subprotocols=protocols,
            additional_headers={"Cookie": cookie},
            origin=self.base,
            max_size=None,
            compression=None,
            open_timeout=10,
            ping_interval=None,
            close_timeout=2,
        )
        self._take_cookies(self.ws.response.headers.get_all("Set-Cookie"))
        self.report.worker = self.cookies.get("PROBCORE_WORKER", "")
        self.report.workers.append(self.report.worker)
        self.closed = asyncio.Event()
        self.inbox = asyncio.Queue()
        self.reader = asyncio.create_task(self._read(self.ws, self.inbox, self.closed))

    @staticmethod
    async def _read(ws, inbox: asyncio.Queue, closed: asyncio.Event) -> None:
        try:
            async for data in ws:
                msg = ForwardMsg()
                msg.ParseFromString(data)
                inbox.put_nowait(msg)
        except ConnectionClosed:
            pass
        finally:
            closed.set()
            inbox.put_nowait(None)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)

    async def send(self, msg: BackMsg) -> None:
        await self.ws.send(msg.SerializeToString())

    # ---- the protocol
    async def rerun(
        self,
        page_hash: str | None = None,
        triggers: tuple[WidgetState, ...] = (),
        fragment_id: str = "",
        timeout: float = STEP_TIMEOUT_S,
        auto: bool = False,
    ) -> tuple[bool, str]:
        """Send a rerun as the frontend does and read until script_finished: (ok, reason). ``auto``: a
        fragment's timer (``st.fragment(run_every=...)``, the room poll) asked for it."""
        state = ClientState(
            query_string=self.query,
            page_script_hash=self.page_hash if page_hash is None else page_hash,
            page_name="" if (self.page_hash if page_hash is None else page_hash) else self.page_name,
            fragment_id=fragment_id,
            is_auto_rerun=auto,
            cached_message_hashes=list(self.cache),
        )
        live = {wid: s for wid, s in self.states.items() if wid in self.widgets or not self.widgets}
        state.widget_states.widgets.extend([*live.values(), *triggers])
        if not fragment_id:
            self.polls = {}  # the frontend drops a page's timers when a whole run starts; the run sends them again
        msg = BackMsg()
        msg.rerun_script.CopyFrom(state)
        await self.send(msg)
        return await self.until_finished(timeout, full=not fragment_id)

    async def until_finished(self, timeout: float, full: bool = True) -> tuple[bool, str]:
        deadline = time.monotonic() + timeout
        seen: dict[str, Widget] = {}
        drawn: dict[str, int] = {}
        alerts: list[str] = []
        error = ""
        while True:
            try:
                msg = await asyncio.wait_for(self.inbox.get(), max(0.01, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                return False, "timeout"
            if msg is None:
                raise ConnectionClosed(None, None)
            kind = msg.WhichOneof("type")
            if kind == "ref_hash":  # an element this browser holds: the server sent its hash only
                msg = self.cache[msg.ref_hash][0]
                kind = msg.WhichOneof("type")
            if msg.metadata.cacheable or msg.hash in self.cache:
                self.cache[msg.hash] = (msg, self.full_runs)
            if kind == "new_session":
                self.session_id = msg.new_session.initialize.session_id or self.session_id
                self.page_hash = msg.new_session.page_script_hash or self.page_hash
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
                self.page_hash = msg.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                which = element.WhichOneof("type")
                proto = getattr(element, which) if which else None
                drawn[which] = drawn.get(which, 0) + 1
                if which == "alert":
                    alerts.append(element.alert.body)
                elif which == "exception":
                    error = error or f"exception: {element.exception.type}: {element.exception.message[:120]}"
                elif proto is not None and hasattr(proto, "id") and getattr(proto, "id", ""):
                    seen[proto.id] = Widget(which, proto, msg.delta.fragment_id)
            elif kind == "auto_rerun":
                self.polls[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
            elif kind == "script_finished":
                if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue  # interrupted by our own next request: keep reading
                if full:  # the frontend's message cache forgets what no run of the last MAX_AGE used
                    self.full_runs += 1
                    self.cache = {h: c for h, c in self.cache.items() if self.full_runs - c[1] <= CACHE_MAX_AGE}
                self.widgets = seen if full else {**self.widgets, **seen}
                self.alerts = alerts
                if full:
                    self.drawn = drawn
                if msg.script_finished not in FINISHED_OK:
                    return False, f"script_finished {msg.script_finished}"
                if any(alert.startswith(REFUSED) for alert in alerts):  # the rerun guard skipped this run
                    return False, "refused: too many reruns"
                return not error, error
            elif kind == "file_urls_response":
                self.file_urls = msg.file_urls_response
                return True, ""

    async def poll(self) -> tuple[bool, str]:
        """What the browser's timer does for each st.fragment(run_every=...): a rerun of that
        fragment (a room's poll); (True, "") when the page has none."""
        for fragment in list(self.polls):
            ok, why = await self.rerun(fragment_id=fragment, auto=True)
            if not ok:
                return ok, why
        return True, ""

    def find(self, target: str) -> tuple[str, Widget] | None:
        """A widget of the current page by key (element id "...-<key>"), else by label."""
        for wid, w in self.widgets.items():
            if wid.endswith("-" + target):
                return wid, w
        for wid, w in self.widgets.items():
            if getattr(w.proto, "label", None) == target:
                return wid, w
        return None

    def set_value(self, action: Action) -> tuple[str, Widget] | None:
        """The new WidgetState of the action's widget, kept in self.states as the browser does."""
        found = self.find(action.target)
        if found is None:
            return None
        wid, w = found
        ws = WidgetState(id=wid)
        if action.kind == "slider" and w.kind == "slider":
            p = w.proto
            steps = int(round((p.max - p.min) / p.step)) if p.step else 100
            value = p.min + p.step * self.rng.randint(0, steps) if p.step else self.rng.uniform(p.min, p.max)
            ws.double_array_value.data.extend([round(value, 10)] * max(1, len(p.default)))
        elif action.kind == "number" and w.kind == "number_input":
            ws.double_value = float(self.rng.choice(action.values))
        elif action.kind == "choice" and w.kind in ("radio", "selectbox"):
            options = list(w.proto.options)
            index = min(self.rng.choice(action.values), len(options) - 1)
            ws.string_value = options[index]
        else:
            return None
        self.states[wid] = ws
        return found

    def live_view(self) -> tuple[str, Widget, dict] | None:
        """The page's live view (a components v2 element whose data has logits and param_values,
        explorer/live): (element id, widget, data), None on a page without one."""
        for wid, w in self.widgets.items():
            if w.kind == "bidi_component":
                text = w.proto.json or w.proto.mixed.json
                data = json.loads(text) if text else None
                if isinstance(data, dict) and "logits" in data and "param_values" in data:
                    return wid, w, data
        return None

    def release(self, action: Action) -> tuple[str, Widget] | None:
        """A release on the page's live view, as explorer/live/static/live_core.js sends it: the
        component's setStateValue("state", {logits, params, seq}) -> the frontend's
        WidgetStateManager.setJsonValue: the element's WidgetState.json_value becomes
        JSON.stringify({...its state, state: ...}), then one rerun of the view's fragment carrying
        every widget state. ``target``: "x_<i>" moves logit i to a random point of its handle's grid
        (-bound..bound, step 0.05, six significant digits as sixDigits), a parameter name moves that
        live parameter on its control's range. Without a live view: the slider ``target``."""
        found = self.live_view()
        if found is None:
            return self.set_value(Action("slider", action.target))
        wid, w, data = found
        logits, params = list(data["logits"]), dict(data["param_values"])
        if action.target.startswith("x_"):
            i = int(action.target[2:]) % len(logits)
            bound = float(data["bound"])
            logits[i] = js_number(
                float(f"{-bound + LIVE_STEP * self.rng.randint(0, round(2 * bound / LIVE_STEP)):.6g}")
            )
        else:
            spec = next((p for p in data["params"] if p["name"] == action.target), None)
            if spec is None:
                return None
            if spec["kind"] == "choice":
                params[spec["name"]] = self.rng.choice(spec["choices"])
            else:
                steps = round((spec["high"] - spec["low"]) / spec["step"])
                value = spec["low"] + spec["step"] * self.rng.randint(0, steps)
                params[spec["name"]] = round(value) if spec["kind"] == "int" else js_number(float(f"{value:.6g}"))
        self.seq[wid] = max(self.seq.get(wid, 0), int(data.get("seq", 0))) + 1
        sent = {"state": {"logits": logits, "params": params, "seq": self.seq[wid]}}
        self.states[wid] = WidgetState(id=wid, json_value=json.dumps(sent, separators=(",", ":"), ensure_ascii=False))
        return wid, w

    async def upload(self, keys: tuple[str, ...]) -> tuple[bool, str]:
        """Both files as the frontend sends them: URLs from the server, a multipart PUT each (XSRF
        header = cookie), then a rerun with the file_uploader states."""
        if self.find(keys[0]) is None and self.find(UPLOAD_SOURCE[0]) is not None:  # as a student: pick "upload" first
            ok, why = await self.act(Action("choice", UPLOAD_SOURCE[0], values=(UPLOAD_SOURCE[1],)))
            if not ok:
                return ok, why
        files = upload_files(self.rng)
        for key, (name, data) in zip(keys, files):
            found = self.find(key)
            if found is None:
                return True, "skipped"
            wid, _ = found
            request = BackMsg(
                file_urls_request=FileURLsRequest(
                    request_id=uuid.uuid4().hex, file_names=[name], session_id=self.session_id
                )
            )
            await self.send(request)
            ok, why = await self.until_finished(STEP_TIMEOUT_S)
            if not ok:
                return ok, why
            urls = self.file_urls.file_urls[0]
            boundary = uuid.uuid4().hex
            body = (
                (
                    f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                    f"Content-Type: text/csv\r\n\r\n"
                ).encode()
                + data
                + f"\r\n--{boundary}--\r\n".encode()
            )
            status, _ = await asyncio.to_thread(
                self._http,
                "PUT",
                urls.upload_url,
                body,
                {
                    "Content-Type": f"multipart/form-data; boundary={boundary}",
                    "X-Xsrftoken": self.cookies.get("_streamlit_xsrf", ""),
                },
            )
            if status != 204:
                return False, f"upload HTTP {status}"
            ws = WidgetState(id=wid)
            ws.file_uploader_state_value.uploaded_file_info.append(
                UploadedFileInfo(file_id=urls.file_id, name=name, size=len(data), file_urls=urls)
            )
            self.states[wid] = ws
        return await self.rerun()

    async def act(self, action: Action) -> tuple[bool, str]:
        if action.kind == "page":
            target = self.pages.get(action.target)
            if target is None or target == self.page_hash:
                return True, "skipped"
            self.query, self.page_name = "", action.target
            return await self.rerun(page_hash=target)
        if action.kind == "upload":
            return await self.upload(action.target)
        if action.kind == "button":
            found = self.find(action.target)
            if found is None:
                return True, "skipped"
            return await self.rerun(triggers=(WidgetState(id=found[0], trigger_value=True),), timeout=RUN_TIMEOUT_S)
        found = self.release(action) if action.kind == "release" else self.set_value(action)
        if found is None:
            return True, "skipped"
        return await self.rerun(fragment_id=found[1].fragment_id)

    def choose(self) -> Action:
        page = next((p for p in PAGES if self.pages.get(p.path) == self.page_hash), self.page)
        return self.rng.choices(page.actions, [a.weight for a in page.actions])[0]

    async def reconnect(self, since: float) -> None:
        """As the frontend: retry health + websocket (backoff), then a rerun with the URL and the
        widget states it holds; the session is restored when the run succeeds and keeps the URL."""
        delay = 0.2
        while self.clock() - since < RECOVER_LIMIT_S:
            try:
                await self.close()
                await self.open()
                url = self.query
                ok, why = await self.rerun()
                if ok:
                    self.report.reconnects.append((self.clock() - since, self.query == url))
                    return
            except (OSError, InvalidHandshake, InvalidStatus, ConnectionClosed, asyncio.TimeoutError):
                pass
            await asyncio.sleep(delay)
            delay = min(2 * delay, 2.0)
        raise Lost

    async def run(self, until: float, step_every: float, first: Callable | None = None) -> None:
        """Open the page, then act every step_every (+-50 %) seconds until the clock reaches until;
        ``first()`` (optional) returns the first action, at once."""
        try:
            began = self.clock()
            try:
                await self.open()
                ok, why = await self.rerun()
                if not ok:
                    self.report.errors.append((began, f"first run: {why}"))
            except (OSError, InvalidHandshake, InvalidStatus, ConnectionClosed):  # as a browser: try again
                self.report.errors.append((began, "first run: connection lost in flight"))
                await self.reconnect(self.clock())
            while self.clock() < until:
                action = await first() if first is not None else None
                first = None
                wait = 0.0 if action else min(step_every * self.rng.uniform(0.5, 1.5), max(0.0, until - self.clock()))
                try:
                    await asyncio.wait_for(self.closed.wait(), wait)
                except asyncio.TimeoutError:
                    pass
                if self.closed.is_set():  # the worker went away while this student was idle
                    await self.reconnect(self.clock())
                    continue
                if self.clock() >= until:
                    break
                action = action or self.choose()
                began = self.clock()
                try:
                    ok, why = await self.act(action)
                except (ConnectionClosed, OSError):
                    self.report.errors.append((began, f"{action.kind} {action.target}: connection lost in flight"))
                    self.report.steps.append((action.kind, self.clock() - began, False, began))
                    await self.reconnect(self.clock())  # served again: counted from the loss
                    continue
                if why == "skipped":
                    if action.kind != "page":
                        self.report.missing.append(f"{self.page_name or '/'} {action.kind} {action.target}")
                    continue
                seconds = self.clock() - began
                if action.kind == "button":
                    self.report.runs.append((seconds, ok))
                else:
                    self.report.steps.append((action.kind, seconds, ok, began))
                if not ok:
                    self.report.errors.append((began, f"{action.kind} {action.target}: {why}"))
        except Lost:
            self.report.lost = True
        finally:
            await self.close()


# ---------------------------------------------------------------- the run ----


def quantile(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank below), nan for none."""
    s = sorted(values)
    return s[int(q * (len(s) - 1))] if s else float("nan")


async def warm_up(url: str, pages: tuple[Page, ...]) -> None:
    """As the teacher opening the app before the class: one session visits every page once on a
    worker (imports, first renders, caches), so the class measures a warm server."""
    student = Student(url, pages[0], random.Random(0), Report(), time.monotonic)
    await student.open()
    await student.rerun(timeout=120)
    for page in pages[1:]:
        await student.act(Action("page", page.path))
    await student.close()


async def the_class(args, base: str, cluster: Cluster | None) -> dict:
    rng = random.Random(args.seed)
    pages = FLOOR_PAGES if args.app == "floor" else PAGES
    if cluster is not None:
        began = time.monotonic()
        await asyncio.gather(*(warm_up(cluster.worker_url(i), pages) for i in range(len(cluster.workers))))
        warm_up_s = time.monotonic() - began
    t0 = time.monotonic()

    def clock() -> float:
        return time.monotonic() - t0

    reports, tasks = [], []
    weights = [p.weight for p in pages]
    for i in range(args.students):
        report = Report()
        student = Student(base, rng.choices(pages, weights)[0], random.Random(rng.random()), report, clock)
        reports.append(report)
        tasks.append(asyncio.create_task(start_later(student, RAMP_S * i / max(1, args.students), args)))
    burst_reports: list[Report] = []
    burst_at = args.seconds / 3
    if args.burst:
        page = next(p for p in PAGES if p.path == BURST_PAGE)
        for i in range(args.burst):
            report = Report()
            burst_reports.append(report)
            student = Student(base, page, random.Random(rng.random()), report, clock)
            tasks.append(asyncio.create_task(burst_student(student, i, burst_at, args)))
    memory: list[tuple[float, list[float]]] = []
    cpu_start = cluster.cpu_seconds() if cluster is not None else []
    killed_at = None
    while not all(t.done() for t in tasks):
        await asyncio.sleep(1.0)
        if cluster is not None:
            memory.append((clock(), cluster.rss_mb()))
            if args.kill_at is not None and killed_at is None and clock() >= args.kill_at:
                cluster.kill_worker(0)
                killed_at = clock()
                cluster.start_worker(0)  # as serve/cluster.py's supervisor does; it rejoins when healthy
        if clock() > args.seconds + RUN_TIMEOUT_S + 60:
            for t in tasks:
                t.cancel()
            break
    await asyncio.gather(*tasks, return_exceptions=True)
    result = summarize(args, reports, burst_reports, burst_at, memory, killed_at)
    result["warm_up_s"] = round(warm_up_s, 1) if cluster is not None else None
    if cluster is not None and killed_at is None:  # a killed worker's counters start again
        cpu = [(own - own0, job - job0) for (own, job), (own0, job0) in zip(cluster.cpu_seconds(), cpu_start)]
        burst = result["burst"] or {"students": 0, "presses": 0}
        runs = (
            result["steps"]
            + args.students
            + result["runs"]["presses"]  # steps, first runs, presses
            + burst["students"]
            + burst["presses"]
        )
        result["worker_cpu_s"] = [round(own, 1) for own, _ in cpu]
        result["job_cpu_s"] = [round(job, 1) for _, job in cpu]
        result["worker_cpu_ms_per_run"] = round(1000 * sum(own for own, _ in cpu) / max(1, runs), 1)
    return result


async def start_later(student: Student, delay: float, args) -> None:
    await asyncio.sleep(delay)
    await student.run(args.seconds, args.step_every)


async def burst_student(student: Student, i: int, at: float, args) -> None:
    """Opens the training demo early, sets its seed (distinct bursts), presses Run at ``at``."""

    async def press() -> Action:
        if args.burst_distinct:
            found = student.find(BURST_SEED)
            if found is not None:
                ws = WidgetState(id=found[0], double_value=float(1000 + i))
                student.states[found[0]] = ws
                await student.rerun(fragment_id=found[1].fragment_id)
        await asyncio.sleep(max(0.0, at - student.clock()))
        return Action("button", BURST_BUTTON)

    await asyncio.sleep(RAMP_S * random.random())
    await student.run(args.seconds, args.step_every * 1e3, first=press)  # after the press: idle


def summarize(args, reports: list[Report], burst: list[Report], burst_at: float, memory, killed_at) -> dict:
    steps = [s for r in reports for s in r.steps]
    times = [s[1] for s in steps if s[2]]
    by_action = {}
    for kind in sorted({s[0] for s in steps}):
        values = [s[1] for s in steps if s[0] == kind and s[2]]
        by_action[kind] = {
            "steps": sum(1 for s in steps if s[0] == kind),
            "p50_s": quantile(values, 0.5),
            "p95_s": quantile(values, 0.95),
            "max_s": max(values, default=float("nan")),
        }
    runs = [r_ for r in reports for r_ in r.runs]
    burst_runs = [r_ for r in burst for r_ in r.runs]
    burst_end = burst_at + max((s for s, _ in burst_runs), default=0.0)
    during = [s[1] for s in steps if s[2] and burst_at <= s[3] <= burst_end]
    reconnects = [c for r in reports + burst for c in r.reconnects]
    warm = [m for t, m in memory if t >= min(args.seconds * 0.2, 60)]  # the class's own warm-up: arrivals
    n_workers = len(memory[0][1]) if memory else 0
    rss = [
        {
            "worker": i + 1,
            "after_warmup": round(warm[0][i], 1) if warm else None,
            "end": round(memory[-1][1][i], 1) if memory else None,
            "max": round(max(m[i] for _, m in memory), 1) if memory else None,
        }
        for i in range(n_workers)
    ]
    per_worker: dict[str, int] = {}
    for r in reports:
        per_worker[r.worker] = per_worker.get(r.worker, 0) + 1
    errors = [e for r in reports + burst for e in r.errors]
    return {
        "students": args.students,
        "seconds": args.seconds,
        "workers": args.workers,
        "step_every_s": args.step_every,
        "steps": len(steps),
        "p50_s": quantile(times, 0.5),
        "p95_s": quantile(times, 0.95),
        "max_s": max(times, default=float("nan")),
        "errors": len(errors),
        "sessions_lost": sum(r.lost for r in reports + burst),
        "by_action": by_action,
        "runs": {
            "presses": len(runs),
            "ok": sum(ok for _, ok in runs),
            "p50_s": quantile([s for s, _ in runs], 0.5),
            "max_s": max((s for s, _ in runs), default=float("nan")),
        },
        "burst": {
            "students": len(burst),
            "distinct_seeds": bool(args.burst_distinct),
            "at_s": round(burst_at, 1),
            "presses": len(burst_runs),
            "ok": sum(ok for _, ok in burst_runs),
            "p50_s": quantile([s for s, _ in burst_runs], 0.5),
            "max_s": max((s for s, _ in burst_runs), default=float("nan")),
            "per_worker": {w: sum(r.worker == w for r in burst) for w in sorted({r.worker for r in burst})},
            "other_steps_meanwhile": len(during),
            "other_max_s": max(during, default=float("nan")),
        }
        if burst
        else None,
        "reconnects": {
            "count": len(reconnects),
            "restored_url": sum(ok for _, ok in reconnects),
            "p95_s": quantile([s for s, _ in reconnects], 0.95),
            "max_s": max((s for s, _ in reconnects), default=float("nan")),
            "killed_at_s": killed_at,
        },
        "rss_mb": rss,
        "students_per_worker": per_worker,
        "first_worker": [r.workers[0] if r.workers else "" for r in reports],
        "reconnected": [len(r.reconnects) for r in reports],
        "error_samples": [f"{t:.1f}s {what}" for t, what in errors[:10]],
        "missing_widgets": dict(Counter(m for r in reports + burst for m in r.missing)),
        "load_average_end": os.getloadavg()[0],
        "client_cpu_s": round(time.process_time(), 1),  # this generator's own CPU, on the same cores
    }


def table(result: dict) -> str:
    groups = result.get("groups", 1)
    rows = [
        (
            "app, students / workers",
            f"{result.get('app', 'explorer')}, {result['students']} / {result['workers']}"
            + (f" in each of {groups} groups (one Redis, one HAProxy)" if groups > 1 else ""),
        ),
        ("page steps", result["steps"]),
        ("p50 s", f"{result['p50_s']:.3f}"),
        ("p95 s", f"{result['p95_s']:.3f}"),
        ("max s", f"{result['max_s']:.3f}"),
        ("errors", result["errors"]),
        ("sessions lost", result["sessions_lost"]),
        (
            "training presses (ok), p50 / max s",
            f"{result['runs']['presses']} ({result['runs']['ok']}), "
            f"{result['runs']['p50_s']:.2f} / {result['runs']['max_s']:.2f}",
        ),
        (
            "reconnects (URL kept), max s",
            f"{result['reconnects']['count']} ({result['reconnects']['restored_url']}), "
            f"{result['reconnects']['max_s']:.2f}",
        ),
        (
            "students per worker",
            ", ".join(f"{k or '?'}: {v}" for k, v in sorted(result["students_per_worker"].items())),
        ),
        (
            "RSS MiB per worker (warm, end, max)",
            "; ".join(f"w{r['worker']}: {r['after_warmup']}, {r['end']}, {r['max']}" for r in result["rss_mb"]),
        ),
        (
            "actions whose widget was missing",
            ", ".join(f"{k} x{v}" for k, v in result["missing_widgets"].items()) or "none",
        ),
        ("load average (1 min) at the end", f"{result['load_average_end']:.2f}"),
        ("CPU seconds of this load generator", result["client_cpu_s"]),
    ]
    if result.get("worker_cpu_s"):
        rows.append(
            (
                "worker CPU s (job process CPU s), ms per script run",
                f"{result['worker_cpu_s']} ({result['job_cpu_s']}), {result['worker_cpu_ms_per_run']}",
            )
        )
    for kind, a in result["by_action"].items():
        rows.append(
            (
                f"  {kind}: steps, p50 / p95 / max s",
                f"{a['steps']}, {a['p50_s']:.3f} / {a['p95_s']:.3f} / {a['max_s']:.3f}",
            )
        )
    if result["burst"]:
        b = result["burst"]
        rows.append(
            (
                f"burst of {b['students']} Run presses ({'distinct' if b['distinct_seeds'] else 'identical'})",
                f"{b['ok']}/{b['presses']} ok, p50 {b['p50_s']:.2f} s, last {b['max_s']:.2f} s; other steps "
                f"meanwhile {b['other_steps_meanwhile']}, max {b['other_max_s']:.3f} s",
            )
        )
        rows.append(("  burst students per worker", ", ".join(f"{k or '?'}: {v}" for k, v in b["per_worker"].items())))
    if result.get("heavy_runs_computed") is not None:
        rows.append(("heavy runs computed, all workers (shared store)", result["heavy_runs_computed"]))
    width = max(len(str(k)) for k, _ in rows)
    return "\n".join(f"{str(k):<{width}}  {v}" for k, v in rows)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--step-every", type=float, default=3.0, help="mean seconds between a student's steps")
    parser.add_argument("--kill-at", type=float, default=None, help="SIGKILL worker 1 at this second")
    parser.add_argument("--burst", type=int, default=0, help="extra students pressing Run together")
    parser.add_argument("--burst-distinct", action="store_true", help="each burst student with its own seed")
    parser.add_argument(
        "--app",
        choices=("explorer", "floor"),
        default="explorer",
        help="floor: bench_explorer.py's one-slider one-chart app, the yardstick of this machine",
    )
    parser.add_argument("--url", default=None, help="load a class already served here instead (loopback)")
    parser.add_argument(
        "--groups",
        type=int,
        default=1,
        help="groups of --workers workers, as that many machines: one Redis, one HAProxy",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if not (
        1 <= args.students <= 500 and 1 <= args.seconds <= 3600 and 1 <= args.workers <= 16 and 1 <= args.groups <= 4
    ):
        parser.error("students in [1, 500], seconds in [1, 3600], workers in [1, 16], groups in [1, 4]")
    missing = [
        f"{name} (apt-get install -y {package})"
        for name, path, package, needed in (
            ("HAProxy", serving.HAPROXY, "haproxy", not args.url),
            ("redis-server", REDIS, "redis-server", args.groups > 1),
        )
        if needed and not Path(path).exists()
    ]
    if missing:
        parser.error(
            f"not installed: {', '.join(missing)}; bash scripts/serve.sh installs HAProxy, "
            "and redis-server with --store redis"
        )
    if args.url:
        host = urllib.parse.urlsplit(args.url).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            parser.error("--url must be on loopback")
        result = asyncio.run(the_class(args, args.url.rstrip("/"), None))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            script = ROOT / "app.py"
            if args.app == "floor":
                script = Path(tmp) / "floor.py"
                script.write_text(FLOOR_APP)
            if args.groups > 1:  # a fresh Redis: its count of heavy runs starts at 0
                if args.app == "floor":
                    parser.error("--groups runs the explorer")
                with Groups(args.groups, args.workers, Path(tmp), env=WORKER_ENV) as cluster:
                    result = asyncio.run(the_class(args, cluster.url, cluster))
                    result["heavy_runs_computed"] = RedisRuns(cluster.redis.url).computed()
            else:
                store = Path(tmp) / "runs.sqlite3"  # this class's shared heavy-run store: its count starts at 0
                with Cluster(
                    args.workers, script=script, env={**WORKER_ENV, RUNS_URL: f"sqlite:///{store}"}
                ) as cluster:
                    result = asyncio.run(the_class(args, cluster.url, cluster))
                result["heavy_runs_computed"] = SharedRuns(store).computed()
    result["app"], result["groups"] = args.app, args.groups
    result["load_average_start"] = LOAD_AT_START
    print(table(result))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1, default=float))
    return result


LOAD_AT_START = os.getloadavg()[0]

if __name__ == "__main__":
    main()
