"""The lesson player on every page: :func:`bar` (called by app.py between the navigation and the
page) draws the lesson bar above the page (narration, step counter, Previous / Next, back to the
lesson's view), keeps ``lesson``, ``step`` and ``room`` in the URL, opens what a link names, and
in a room moves a following student to the teacher's step (a fragment polling the room store).

A room store that is down (explorer/serving/store.py: StoreUnavailable, a Redis being restarted)
never raises into a page: every call here turns it into the inline "rooms unavailable, retrying"
(``room.unavailable``: a warning, on the bar and on the Lessons page alike, :func:`show_room_error`),
and the polling fragment retries what could not be done: a student's join (a reconnect to another
worker during the outage keeps ``room`` in its URL), a teacher's move (``_room_pending``: the
students see it once the store is back), the following itself.

Showing a step (:func:`show_step`, from a click or the room poll) = switching to its page, then, in
that page's run, setting every control to the step's state (:func:`bar`, before the page draws a
control). Not before the switch: the run that switches pages may carry the browser's widget values
of the page it leaves (a poll of the room sent meanwhile, which Streamlit merges into the switch's
run); set before them, the step's state would be undone by them, and the old page's callbacks would
fire on keys the step deleted (a KeyError ending the run: no bar, no more polls, a student stuck).
"""

from __future__ import annotations

import streamlit as st

from explorer.classroom import lessons, rooms
from explorer.serving import client as asker
from explorer.serving import limits
from explorer.serving.store import StoreUnavailable
from explorer.i18n import language, t
from explorer.session import state
from explorer.session.keys import SessionKey
from views import registry
from views.check import session as check_session

POLL_S = 1.0  # a following student sees a teacher's move within POLL_S + one page run
LESSON = state.Option("lesson", "text", "")
STEP = state.Option("step", "int", 0, low=0, high=lessons.MAX_STEPS)
ROOM = state.Option("room", "text", "")
TEACHER_PARAM = "teacher"  # the teacher link's secret: read once, then kept in the session only
ARROW_KEYS = """<script>
// Arrow keys for a presenter: Right / Left press Next / Previous, only while no control has the
// focus (a focused chip, slider, field or button keeps its own arrow keys).
const doc = window.parent.document;
if (!doc.__lessonKeys) {
  doc.__lessonKeys = true;
  doc.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || !['ArrowRight', 'ArrowLeft'].includes(e.key)) return;
    const focused = doc.activeElement;
    if (focused && focused !== doc.body && focused !== doc.documentElement) return;
    const button = doc.querySelector(e.key === 'ArrowRight' ? '.st-key-lesson_next button' : '.st-key-lesson_prev button');
    if (button && !button.disabled) { e.preventDefault(); button.click(); }
  });
}
</script>"""


# The leave button shows its icon only (the column is narrow); its words stay for screen readers.
LEAVE_CSS = """<style>
.st-key-lesson_leave button [data-testid="stMarkdownContainer"] { position: absolute; width: 1px; height: 1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
</style>"""


@limits.once_per_process
def store() -> rooms.RoomStore:
    """The room store of this process (PROBCORE_ROOMS_URL); ValueError for an unsupported URL."""
    return rooms.open_store()


@st.cache_data(max_entries=64, show_spinner=False)
def room_lesson(lesson_id: str, text: str) -> lessons.Lesson:
    """A room's lesson, parsed and checked like an uploaded file."""
    return lessons.parse(text, lesson_id)


def client() -> str:
    """Who is asking, for the rate limits only (stored as a salted hash): the address the project's
    proxy saw, else the peer (explorer/client.py: a client's own header is never trusted)."""
    return asker.address() or "local"


def base_url() -> str:
    """The app's address without the page path (empty when unknown: links stay relative)."""
    url = (st.context.url or "").split("?")[0].rstrip("/")
    return url.rsplit("/lesson", 1)[0] if url.endswith("/lesson") else url


# ---------------------------------------------------------------- moving between steps ----


def show_step(lesson: lessons.Lesson, k: int) -> None:
    """Make step k (0-based) the current one: :func:`bar` switches to its page (``_lesson_go``)
    and there sets every control to the step's state (``_lesson_set``, :func:`_set_step_state`)."""
    ss = st.session_state
    k = max(0, min(int(k), len(lesson.steps) - 1))
    ss["_lesson"], ss["_lesson_step"], ss["_lesson_go"], ss["_lesson_set"] = lesson, k, True, True


def _set_step_state(step: lessons.Step) -> None:
    """Every control to the step's state: the defaults, then the step's parameters (the viewer's
    language and presentation mode stay). Before the page draws: a control already drawn in this
    run cannot be set (Streamlit refuses), but a deleted key can."""
    ss = st.session_state
    values = {
        key: o.default
        for key, o in {**state.OPTIONS, **registry.all_options()}.items()
        if key not in lessons.VIEWER_KEYS
    }
    values.update(step.values())
    for key, value in values.items():
        if key in ss:
            del ss[key]
        ss[key] = value
    for key in [key for key in ss if key.startswith("x_")]:
        del ss[key]
    state.forget_last_valid_kwargs()
    check_session.forget_filled_example()  # the Check page fills the step's example in again


def leave() -> None:
    ss = st.session_state
    for key in ("_lesson", "_lesson_step", "_room", "_room_secret", "_room_version", "_room_pending", "_room_retry"):
        ss.pop(key, None)
    RECOVERY_PIN.pop()


def move(delta: int | None = None, to: int | None = None) -> None:
    """Previous / Next / jump (a callback): a teacher moves the room too; a following student who
    moves on their own stops following."""
    ss = st.session_state
    lesson = ss["_lesson"]
    k = ss["_lesson_step"] + delta if to is None else to
    k = max(0, min(k, len(lesson.steps) - 1))
    if ss.get("_room") and ss.get("_room_secret"):
        try:
            room = store().move(ss["_room"], ss["_room_secret"], k, client())
        except rooms.RateLimited as err:  # only a wrong secret is limited: keep it, say why
            room, ss["_room_error"] = None, t("room.limited", seconds=err.retry_s)
        except StoreUnavailable:  # moved here now; the room follows when the store is back (_follow)
            room, ss["_room_pending"] = None, k
        else:
            ss.pop("_room_pending", None)
            if room is None:
                ss["_room_error"] = t("room.not_teacher", code=ss["_room"])
                ss.pop("_room_secret", None)
        if room is not None:
            ss["_room_version"] = room.version
    elif ss.get("_room"):
        ss["_room_follow"] = False
    show_step(lesson, k)


def back_to_view() -> None:
    ss = st.session_state
    show_step(ss["_lesson"], ss["_lesson_step"])


def follow_again() -> None:
    """Follow the room again, from the teacher's current step at once (not at the next poll)."""
    ss = st.session_state
    ss["_room_follow"] = True
    try:
        room = store().get(ss["_room"]) if ss.get("_room") else None
    except StoreUnavailable:
        room = None
    ss["_room_version"] = None if room is None else room.version  # None: the next poll shows the step
    if room is not None:
        show_step(room_lesson(room.lesson_id, room.lesson_text), room.step)


def stop_following() -> None:
    st.session_state["_room_follow"] = False


# ---------------------------------------------------------------- rooms ----


class Outage(str):
    """The message of a room call that failed because the store is down (``room.unavailable`` in the
    session's language): told apart from the other messages by its type, not by its words."""


def _outage() -> Outage:
    return Outage(t("room.unavailable"))


def _warn_unavailable() -> None:
    """The inline "rooms unavailable, retrying" while the room store is down: a warning, not an
    error (it passes by itself: the polling fragment retries what waits for the store)."""
    st.warning(t("room.unavailable"), icon=":material/cloud_off:")


def show_room_error(message: str) -> None:
    """Show the error message of a room call (:func:`join`, :func:`start_room`, :func:`take_back`,
    a callback's ``_room_error``) inline: the store's outage (an :class:`Outage`) as
    :func:`_warn_unavailable`, anything else (a wrong code or PIN, a limit, a lesson that no longer
    validates) as an error."""
    if isinstance(message, Outage):
        _warn_unavailable()
    else:
        st.error(state.plain(message))


def join(code: str, token: str = "") -> str | None:
    """Enter the room of ``code`` (as its teacher when ``token``, a teacher link's one-time token,
    is still unspent: the session then holds a teacher secret of its own) and show its step; an
    error message, or None. While the store is down: ``room.unavailable``, and the join is retried
    by the polling fragment (``_room_retry``)."""
    ss = st.session_state
    ss.pop("_room_retry", None)
    try:  # a teacher link's one-time token first: spent here, whatever follows
        secret = (store().redeem(code, token, client()) or "") if token else ""
        teacher = bool(secret)
        room = store().get(code) if teacher else store().join(code, client(), asker.session_id())
        if room is None:
            return t("room.unknown", code=state.quote(rooms.normalize_code(code)))
        lesson = room_lesson(room.lesson_id, room.lesson_text)
    except rooms.RateLimited as err:
        return t("room.limited", seconds=err.retry_s)
    except StoreUnavailable:
        ss["_room_retry"] = (rooms.normalize_code(code), token)
        return _outage()
    except ValueError as err:  # an unsupported store URL, or a lesson that no longer validates
        return str(err)
    ss["_room"], ss["_room_follow"], ss["_room_version"] = room.code, True, room.version
    if teacher:
        ss["_room_secret"] = secret
    else:
        ss.pop("_room_secret", None)
    show_step(lesson, room.step)
    return None if teacher or not token else t("room.not_teacher", code=room.code)


def teacher_link() -> str | None:
    """A one-time teacher link for this teacher's room (earlier unused links revoked), or None."""
    ss = st.session_state
    try:
        token = store().teacher_link(ss["_room"], ss["_room_secret"])
    except StoreUnavailable:
        _warn_unavailable()
        return None
    return token and f"{base_url()}/lesson?room={ss['_room']}&{TEACHER_PARAM}={token}"


TEACHER_LINK: SessionKey[str] = SessionKey("_teacher_link")  # the one-time link last made on the Lessons page


def revoke_other_teachers() -> None:
    """Rotate (a callback): every other device and link of this room loses control; this session keeps it."""
    ss = st.session_state
    try:
        new = store().revoke(ss["_room"], ss["_room_secret"])
    except StoreUnavailable:
        ss["_room_error"] = _outage()
        return
    if new:
        ss["_room_secret"] = new
        TEACHER_LINK.pop()


RECOVERY_PIN: SessionKey[str] = SessionKey("_recovery_pin")  # shown on the Lessons page until hidden


def new_recovery_pin() -> None:
    """A new recovery PIN for this teacher's room (a callback; the earlier PIN no longer works)."""
    ss = st.session_state
    try:
        pin = store().recovery_pin(ss["_room"], ss["_room_secret"])
    except StoreUnavailable:
        ss["_room_error"] = _outage()
        return
    if pin:
        RECOVERY_PIN.set(pin)


def take_back(code: str, pin: str) -> str | None:
    """Drive room ``code`` again with its recovery PIN (a teacher who reloaded): this session gets
    the room's only teacher secret (every other device and link revoked) and a new PIN; an error
    message, or None."""
    ss = st.session_state
    try:
        secret = store().take_back(code, pin, client())
        room = store().get(code) if secret else None
        if room is None:
            return t("room.pin_wrong")
        lesson = room_lesson(room.lesson_id, room.lesson_text)
    except rooms.RateLimited as err:
        return t("room.pin_limited", minutes=max(1, err.retry_s // 60))
    except StoreUnavailable:
        return _outage()
    except ValueError as err:
        return str(err)
    ss["_room"], ss["_room_secret"], ss["_room_follow"], ss["_room_version"] = room.code, secret, True, room.version
    TEACHER_LINK.pop()
    new_recovery_pin()
    show_step(lesson, room.step)
    ss["_lesson_go"] = False  # stay on the Lessons page, which shows the new PIN
    return None


def start_room(lesson: lessons.Lesson) -> str | None:
    """A new room driven by this session, at the current step of ``lesson``; an error message or None."""
    ss = st.session_state
    step = ss.get("_lesson_step", 0) if ss.get("_lesson") is lesson else 0
    address = asker.address()  # "" without a browser connection (AppTest): not limited
    if address and not limits.rooms_per_client().take(address):
        return t("room.too_many_rooms", rooms=limits.ROOMS_PER_CLIENT, minutes=int(limits.ROOMS_WINDOW_S // 60))
    try:
        code, secret = store().create(lesson.id, lesson.source or lessons.dump(lesson.title, list(lesson.steps)), step)
    except StoreUnavailable:
        return _outage()
    except ValueError as err:
        return str(err)
    ss["_room"], ss["_room_secret"], ss["_room_follow"], ss["_room_version"] = code, secret, True, 0
    new_recovery_pin()
    show_step(lesson, step)
    ss["_lesson_go"] = False  # stay on the Lessons page, which shows the code to the class
    return None


@st.fragment(run_every=POLL_S)
def _follow() -> None:
    """A student's link to the room: when the teacher has moved and the student follows, show the step.
    While the store is down: the inline warning, and at each poll a retry of what waits for it (a
    join, a teacher's move)."""
    ss = st.session_state
    if ss.get("_room_retry"):
        error = join(*ss["_room_retry"])
        if ss.get("_room_retry"):
            _warn_unavailable()
            return
        ss["_room_error"] = error
        st.rerun(scope="app")
    code = ss.get("_room")
    if not code:
        return
    try:
        if ss.get("_room_secret"):  # a teacher's move made while the store was down
            if ss.get("_room_pending") is None:
                return
            room = store().move(code, ss["_room_secret"], ss["_room_pending"], client())
            ss.pop("_room_pending", None)
            if room is None:
                ss["_room_error"] = t("room.not_teacher", code=code)
                ss.pop("_room_secret", None)
            else:
                ss["_room_version"] = room.version
            st.rerun(scope="app")
        room = store().get(code)
    except StoreUnavailable:
        _warn_unavailable()
        return
    except rooms.RateLimited as err:
        ss.pop("_room_pending", None)
        ss["_room_error"] = t("room.limited", seconds=err.retry_s)
        st.rerun(scope="app")
    if room is None:
        st.caption(t("room.gone", code=code))
        return
    if ss.get("_room_follow", True):
        if room.version != ss.get("_room_version"):
            ss["_room_version"] = room.version
            show_step(room_lesson(room.lesson_id, room.lesson_text), room.step)
            st.rerun(scope="app")
        st.caption(t("room.following", code=code))
    else:
        st.caption(t("room.not_following", code=code, step=room.step + 1))


def _follow_button() -> None:
    """Stop following / Follow again, outside the polling fragment: a click runs the whole page
    (Follow again shows the teacher's step, maybe on another page)."""
    if st.session_state.get("_room_follow", True):
        st.button(t("room.stop"), on_click=stop_following, key="room_stop", icon=":material/pause:")
    else:
        st.button(t("room.follow"), on_click=follow_again, key="room_follow", type="primary", icon=":material/sync:")


# ---------------------------------------------------------------- the bar ----


def _from_url() -> None:
    """Once per session: open the room or lesson a link names (?room=CODE[&teacher=SECRET],
    ?lesson=ID&step=K). A link with other view parameters too keeps that view (a reload)."""
    ss = st.session_state
    ss["_lesson_url_read"] = True
    query = st.query_params
    if ss.get("room"):
        error = join(ss["room"], query.get(TEACHER_PARAM, ""))
        if not ss.get("_room_retry"):  # else the polling fragment says why and tries again
            ss["_room_error"] = error
        if ss.get("_room"):
            st.rerun()
        return
    lesson_id = ss.get("lesson")
    if not lesson_id:
        return
    try:
        lesson = lessons.shipped()[lesson_id]
    except KeyError:
        st.warning(state.plain(t("lesson.unknown", id=state.quote(lesson_id))))
        return
    except lessons.LessonError as err:
        st.error(state.plain(str(err)))
        return
    k = max(0, min(int(ss.get("step") or 1) - 1, len(lesson.steps) - 1))
    view = set(query) - set(lessons.VIEWER_KEYS) - set(lessons.PLAYER_KEYS)
    show_step(lesson, k)
    if view:  # a reload of a view the student changed: keep the lesson, not its state
        ss["_lesson_go"] = False
        st.warning(t("lesson.url_view"))
    else:
        st.rerun()


def draft() -> dict | None:
    """The lesson being edited ({"title", "uid", "steps"}), None when none."""
    return st.session_state.get("_draft")


def teaching_room() -> tuple[str, str] | None:
    """(code, secret) of the room this session teaches, None when it teaches none."""
    ss = st.session_state
    return (ss["_room"], ss["_room_secret"]) if ss.get("_room") and ss.get("_room_secret") else None


def discard_draft() -> None:
    """Stop editing: the draft is gone (the Lessons page's Discard)."""
    st.session_state.pop("_draft", None)


def new_draft(title: dict[str, str], steps=()) -> None:
    """Start editing a lesson: its title and steps; each step a dict with a uid (the key of its
    text areas, kept when steps are reordered)."""
    st.session_state["_draft"] = {
        "title": dict(title),
        "uid": len(steps),
        "steps": [{"uid": i, "page": s.page, "params": dict(s.params), "texts": s.texts} for i, s in enumerate(steps)],
    }


def _add_view(page_name: str) -> None:
    """Append the current view (the URL's parameters, as synced after the last run) to the draft."""
    draft = st.session_state["_draft"]
    params = {
        k: v
        for k, v in st.query_params.to_dict().items()
        if k not in lessons.VIEWER_KEYS and k not in lessons.PLAYER_KEYS and k != TEACHER_PARAM
    }
    texts = {"text": {lang: t("author.new_text") for lang in ("en", "zh")}}
    draft["steps"].append({"uid": draft["uid"], "page": page_name, "params": params, "texts": texts})
    draft["uid"] += 1
    n = len(draft["steps"])
    st.session_state["_draft_note"] = t("author.added_one") if n == 1 else t("author.added", n=n)


def bar(page) -> None:
    """Above the page: the lesson bar (or the authoring button), the room's follow control; keeps
    lesson / step / room in the URL and switches to the step's page after a move."""
    ss = st.session_state
    for option in (LESSON, STEP, ROOM):
        state.page_option(option, lambda key: ss[key])
    if "_lesson_url_read" not in ss:
        _from_url()
    lesson, k = ss.get("_lesson"), ss.get("_lesson_step", 0)
    ss["lesson"] = lesson.id if lesson is not None and lesson.id in _shipped_ids() else ""
    ss["step"] = k + 1 if lesson is not None else 0
    ss["room"] = ss.get("_room") or (ss.get("_room_retry") or ("",))[0]  # kept while a join waits for the store
    if lesson is not None and ss.get("_lesson_go"):
        target = registry.PAGES[lesson.steps[k].page]
        if page.url_path != target.url_path:
            st.switch_page(target.script)  # _lesson_go stays set until a run is on the step's page
        ss["_lesson_go"] = False
    if lesson is not None and ss.pop("_lesson_set", False):
        _set_step_state(lesson.steps[k])
    if ss.get("_room_error"):
        show_room_error(ss.pop("_room_error"))
    shown = registry.by_path(page.url_path)
    if ss.get("_draft") is not None and shown is not None and shown.in_lessons:
        c1, c2 = st.columns([1, 3], vertical_alignment="center")
        c1.button(
            t("author.add_view"),
            on_click=_add_view,
            args=(shown.id,),
            key="author_add_view",
            icon=":material/add_circle:",
        )
        title, n = (
            ss["_draft"]["title"].get(language()) or ss["_draft"]["title"].get("en") or "…",
            len(ss["_draft"]["steps"]),
        )
        c2.caption(
            ss.pop("_draft_note", t("author.draft_one", title=title) if n == 1 else t("author.draft", title=title, n=n))
        )
    if ss.get("_room") and not ss.get("_room_secret"):
        _follow()
        _follow_button()
    elif ss.get("_room_retry") or (ss.get("_room_secret") and ss.get("_room_pending") is not None):
        _follow()  # waiting for the store: retried at each poll
    if lesson is None:
        return
    _lesson_bar(lesson, k)


@st.cache_data(ttl=60, show_spinner=False)
def _shipped_ids() -> tuple[str, ...]:
    return tuple(path.stem for path in sorted(lessons.LESSON_DIR.glob("*.toml")))


def _lesson_bar(lesson: lessons.Lesson, k: int) -> None:
    ss = st.session_state
    lang = language()
    step = lesson.steps[k]
    with st.container(border=True, key="lesson_bar"):
        # the jump list on the title's row: Previous / Next / Back keep room for their labels (presentation mode)
        c_title, c_jump, c_count = st.columns([3, 1.6, 1], vertical_alignment="bottom")
        c_title.markdown(
            f"**{state.plain(lesson.title_in(lang))}** · {t('lesson.counter', k=k + 1, n=len(lesson.steps))}"
        )
        c_count.progress((k + 1) / len(lesson.steps))
        c_prev, c_next, c_back, c_leave = st.columns([2, 2, 3.4, 0.6], vertical_alignment="center")
        c_prev.button(
            t("lesson.prev"),
            on_click=move,
            args=(-1,),
            key="lesson_prev",
            disabled=k == 0,
            shortcut="PageUp",
            icon=":material/arrow_back:",
            width="stretch",
        )
        c_next.button(
            t("lesson.next"),
            on_click=move,
            args=(1,),
            key="lesson_next",
            type="primary",
            disabled=k == len(lesson.steps) - 1,
            shortcut="PageDown",
            icon=":material/arrow_forward:",
            width="stretch",
        )
        labels = [f"{i + 1}. {t('page.' + s.page)}" for i, s in enumerate(lesson.steps)]
        c_jump.selectbox(
            t("lesson.jump"),
            labels,
            index=k,
            key=f"lesson_jump_{lesson.id}_{k}_{language()}",
            label_visibility="collapsed",
            on_change=_jump,
            args=(f"lesson_jump_{lesson.id}_{k}_{language()}", k),
        )
        c_back.button(
            t("lesson.back"),
            on_click=back_to_view,
            key="lesson_back",
            icon=":material/restart_alt:",
            help=t("lesson.back_help"),
            width="stretch",
        )
        c_leave.button(
            t("lesson.leave"), on_click=leave, key="lesson_leave", icon=":material/close:", help=t("lesson.leave")
        )  # named by what it does; its words hidden by LEAVE_CSS
        try:
            st.markdown(lessons.narration(step, lang))
            if "question" in step.texts:
                with st.expander(t("lesson.question"), icon=":material/quiz:", expanded=True):
                    st.markdown(lessons.narration(step, lang, "question"))
                    if "answer" in step.texts and st.toggle(t("lesson.reveal"), key=f"lesson_reveal_{k}"):
                        st.markdown(lessons.narration(step, lang, "answer"))
        except lessons.LessonError as err:
            st.error(state.plain(str(err)))
        if ss.get("_room_secret"):
            st.caption(t("room.teacher_line", code=ss["_room"]))
    st.html(LEAVE_CSS)
    st.iframe(ARROW_KEYS, height=1, tab_index=-1)  # the keys' script: no Tab stop


def _jump(key: str, drawn_at: int) -> None:
    """The jump list's choice "K. Page" -> step K. Streamlit may report the list changed when nobody
    touched it (on the run after a room moved the student; on a poll run after a page switch, which
    Streamlit can take for a switch back and so forget the widget values): a list drawn at another
    step than the current one, or a choice of the step it was drawn at, is no move (a following
    student would stop following)."""
    head = str(st.session_state.get(key) or "").split(".")[0]
    if not head.isdigit():  # a value the list never offers (a crafted websocket message): no move
        return
    k = int(head) - 1
    if st.session_state.get("_lesson_step") == drawn_at and k != drawn_at:
        move(to=k)
