"""One simulated student of bench/bench_load.py's class: a browser without a browser, speaking
Streamlit's own protocol, and what it does on each page of the class (:data:`PAGES`).

:class:`Student` opens a page as the frontend does (GET /_stcore/health for the cookies, the
websocket /_stcore/stream with its old session id, a ``rerun_script`` BackMsg with the URL, the
widget states and the hashes of the elements it holds) and reads ForwardMsgs until
``script_finished``; :meth:`Student.act` takes one :class:`Action` (a widget change, a release of a
live view, two uploads, a button, another page) and :meth:`Student.run` acts every few seconds until
the end of the class, reconnecting through the proxy when its worker goes away. The protocol in
detail: bench/bench_load.py's docstring. Also driven directly by bench/bench_step_cpu.py and the
served tests (tests/test_serve.py, tests/test_serve_groups.py, tests/test_hostile_server.py).
"""

from __future__ import annotations

import asyncio
import collections
import http.client
import io
import json
import random
import urllib.parse
import uuid
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Common_pb2 import FileURLsRequest, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.frames import Opcode

from explorer.i18n import EN
from views import registry

STEP_TIMEOUT_S = 30.0  # a page step slower than this is an error
RUN_TIMEOUT_S = 300.0  # a training press (queue wait included)
RECOVER_LIMIT_S = 30.0  # a student not served again within this after losing its worker is lost
LIVE_STEP = 0.05  # the live views' logit handles: explorer/live/static/live_core.js STEP
# A run the rerun guard (explorer/serving/guard.py) refuses: a warning instead of the page, an error here.
REFUSED = tuple(EN[key].split("{")[0] for key in ("guard.too_fast", "guard.too_fast_client"))
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
# key on a page whose view is not live yet. Topic pages: widget changes. (Compare's target class,
# in its Logits expander, left the mix on 2026-11-28: a live page opens that expander closed, and a
# closed expander draws no widget.)
PAGES = (
    Page(
        registry.PAGES["compare"].url_path,
        "",
        4,
        (
            Action("release", "x_0", 3),
            Action("release", "x_2", 3),
            Action("release", "temperature", 0.5),
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
UPLOAD_SOURCE = ("check_source", 1)  # the choice that shows the uploaders, and its option index


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


class Stream(ClientConnection):
    """The websocket of one student, reading as the frontend does: every message the server sends
    is parsed into a ForwardMsg at once and appended to ``received``, in order (None once the
    connection is gone), then ``on_arrival()`` is called (when set). Once the handshake's response is read, the
    server's data frames (RFC 6455 5.2: unmasked, FIN/opcode byte, 7/16/64-bit length) are cut here
    and control frames (close, ping, pong) and anything unusual are passed whole to the websockets
    protocol, which stays at a frame boundary: the same frames, without the library's per-frame
    generators, message queue and a reader task per student (this generator shares the workers'
    cores)."""

    fragments: list[bytes] | None = None  # the frames so far of a message sent in several
    head: bytes = b""  # the handshake's response so far
    frames: bytearray | None = None  # after the handshake: bytes not yet cut into frames; None: the library reads

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.received: collections.deque = collections.deque()
        self.on_arrival: Callable[[], None] | None = None

    def deliver(self, msg: ForwardMsg | None) -> None:
        self.received.append(msg)
        if self.on_arrival is not None:
            self.on_arrival()

    def data_received(self, data: bytes) -> None:
        if self.frames is not None:
            self.frames += data
            self._cut_frames()
        elif self.response is None and not self.head.endswith(b"\r\n\r\n"):
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                super().data_received(data)
                return
            rest = len(self.head) - (end + 4)
            self.head = self.head[: end + 4]
            super().data_received(data[: len(data) - rest])
            if self.response is not None and self.response.status_code == 101:
                self.frames = bytearray(data[len(data) - rest :])
                self._cut_frames()
            elif rest:
                super().data_received(data[len(data) - rest :])
        else:
            super().data_received(data)

    def _cut_frames(self) -> None:
        buf, at = self.frames, 0
        while len(buf) - at >= 2:
            first, second = buf[at], buf[at + 1]
            size, start = second & 0x7F, at + 2
            if size == 126:
                if len(buf) - at < 4:
                    break
                size, start = int.from_bytes(buf[at + 2 : at + 4], "big"), at + 4
            elif size == 127:
                if len(buf) - at < 10:
                    break
                size, start = int.from_bytes(buf[at + 2 : at + 10], "big"), at + 10
            if len(buf) - start < size:
                break
            opcode = first & 0x0F
            if opcode <= 2 and not (first & 0x70 or second & 0x80):  # data, no extension bits, unmasked
                self._take(opcode, bool(first & 0x80), bytes(buf[start : start + size]))
                at = start + size
            else:  # a control frame or a malformed one: the library's rules
                raw = bytes(buf[at : start + size])
                at = start + size
                if opcode == 8 or first & 0x70 or second & 0x80:  # close (or an error): the library reads on
                    self.frames = None
                    super().data_received(raw + bytes(buf[at:]))
                    return
                super().data_received(raw)
        del buf[:at]

    def _take(self, opcode: int, fin: bool, data: bytes) -> None:
        if opcode != 0:
            self.fragments = []
        self.fragments.append(data)
        if fin:
            msg = ForwardMsg()
            msg.ParseFromString(self.fragments[0] if len(self.fragments) == 1 else b"".join(self.fragments))
            self.fragments = None
            self.deliver(msg)

    def process_event(self, event) -> None:
        if self.response is not None and event.opcode in (Opcode.BINARY, Opcode.TEXT, Opcode.CONT):
            self._take(event.opcode.value, event.fin, event.data)
        else:
            super().process_event(event)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.deliver(None)


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
        self.ws: Stream | None = None
        self.inbox: collections.deque = collections.deque()  # ForwardMsgs not read yet (Stream.received)
        self.arrived: asyncio.Future | None = None  # set when a message lands in an empty inbox
        self.closed = asyncio.Event()
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

    async def open(self, headers: dict | None = None, open_timeout: float = 10) -> None:
        """Health (cookies), then the websocket carrying the old session id as the frontend does
        (``headers``: added to both requests). No permessage-deflate: Streamlit's server leaves it
        off (server.enableWebsocketCompression = false), so a browser's frames are not compressed
        either."""
        status, body = await asyncio.to_thread(self._http, "GET", "/_stcore/health", b"", headers)
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
            additional_headers={**({"Cookie": cookie} if cookie else {}), **(headers or {})},
            origin=self.base,
            max_size=None,
            compression=None,
            proxy=None,  # loopback: no proxy settings to look up for every connection
            open_timeout=open_timeout,
            ping_interval=None,
            close_timeout=2,
            create_connection=Stream,
        )
        inbox, closed = self.ws.received, asyncio.Event()

        def wake() -> None:
            if inbox[-1] is None:
                closed.set()
            if self.inbox is inbox and self.arrived is not None and not self.arrived.done():
                self.arrived.set_result(None)

        self.ws.on_arrival = wake
        if inbox and inbox[-1] is None:  # closed while the handshake ended
            closed.set()
        self._take_cookies(self.ws.response.headers.get_all("Set-Cookie"))
        self.report.worker = self.cookies.get("PROBCORE_WORKER", "")
        self.report.workers.append(self.report.worker)
        self.closed, self.inbox = closed, inbox

    def stop_reading(self) -> None:
        """A browser tab that never reads again: the server's sends to it back up."""
        self.ws.transport.pause_reading()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def next_message(self) -> ForwardMsg:
        """The next ForwardMsg in the order the server sent it (ConnectionClosed once the socket is
        gone and every message before that was read)."""
        while not self.inbox:
            self.arrived = asyncio.get_running_loop().create_future()
            try:
                await self.arrived
            finally:
                self.arrived = None
        msg = self.inbox.popleft()
        if msg is None:
            self.inbox.appendleft(None)  # closed stays closed
            raise ConnectionClosed(None, None)
        return msg

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
        try:
            async with asyncio.timeout(max(0.01, timeout)):
                return await self._read_run(full)
        except TimeoutError:
            return False, "timeout"

    async def _read_run(self, full: bool) -> tuple[bool, str]:
        seen: dict[str, Widget] = {}
        drawn: dict[str, int] = {}
        alerts: list[str] = []
        error = ""
        while True:
            msg = self.inbox.popleft() if self.inbox and self.inbox[0] is not None else await self.next_message()
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
