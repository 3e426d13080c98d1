"""Lessons: pick a shipped lesson (or open a lesson file) and play it, start a live room or join
one with its code, and write a lesson: add views as steps from any page, edit the narrations,
reorder, download the file. The player itself is the bar above every page (explorer.classroom.lesson_bar)."""

import streamlit as st

from explorer.classroom import lesson_bar, lessons, rooms
from explorer.i18n import LANGS, language, t
from explorer.serving import limits
from explorer.session import state

ss = st.session_state
FIELD_LABELS = {
    ("text", "en"): "author.text_en",
    ("text", "zh"): "author.text_zh",
    ("question", "en"): "author.question_en",
    ("question", "zh"): "author.question_zh",
    ("answer", "en"): "author.answer_en",
    ("answer", "zh"): "author.answer_zh",
}


def placeholder_table() -> str:
    """Every placeholder a narration may hold (lessons.COMPUTATIONS), with its arguments and what
    it computes, as a Markdown table: the whole list, never cut."""
    rows = [
        f"| `{{{{{':'.join((name, *filter(None, c.args.split(':'))))}}}}}` | {t(f'lesson.ph.{name}')} |"
        for name, c in lessons.COMPUTATIONS.items()
    ]
    return "\n".join([f"| {t('author.ph_name')} | {t('author.ph_value')} |", "|---|---|", *rows])


st.title(t("page.lesson"))
st.caption(t("lesson.intro"))
lang = language()

try:
    shipped = lessons.shipped()
except lessons.LessonError as err:  # a broken file in lessons/: the others still play
    st.error(state.plain(str(err)))
    shipped = {}
choices = {**shipped, **({"draft": ss["_draft_lesson"]} if ss.get("_draft_lesson") else {})}

# Stateful tabs (a key, a rerun on a switch): a button's run keeps the tab it was pressed in, and
# starting a room or a new lesson opens the tab that shows it (show_tab) with no second click.
TABS = [t("lesson.tab_play"), t("room.tab"), t("author.tab")]
if ss.get("_lesson_tab_go") is not None:
    ss["lesson_tab"] = TABS[ss.pop("_lesson_tab_go")]
tab_play, tab_room, tab_write = st.tabs(TABS, key="lesson_tab", on_change="rerun")


def show_tab(index: int) -> None:
    """Open tab ``index`` (0 play, 1 room, 2 write) on the next run (a callback, or before st.rerun)."""
    ss["_lesson_tab_go"] = index


def new_lesson() -> None:
    lesson_bar.new_draft({lang_: "" for lang_ in LANGS})
    show_tab(2)


# ---------------------------------------------------------------- play
with tab_play:
    if not choices:
        st.info(t("lesson.none"))
    else:
        lesson_id = st.selectbox(
            t("lesson.pick"), tuple(choices), key="lesson_pick", format_func=lambda i: choices[i].title_in(lang)
        )
        lesson = choices[lesson_id]
        st.button(
            t("lesson.start"),
            on_click=lesson_bar.show_step,
            args=(lesson, 0),
            type="primary",
            icon=":material/play_arrow:",
            key="lesson_start",
        )
        for k, step in enumerate(lesson.steps):  # each step: its page and its whole narration, as the bar shows it
            c1, c2 = st.columns([1, 11], vertical_alignment="top")
            c1.button(
                f"{k + 1}",
                on_click=lesson_bar.show_step,
                args=(lesson, k),
                key=f"lesson_goto_{lesson_id}_{k}",
                width="stretch",
                help=t("lesson.goto", k=k + 1),
            )
            with c2:
                st.markdown(f"**{k + 1}. {t('page.' + step.page)}**")
                try:
                    st.markdown(lessons.narration(step, lang))
                except lessons.LessonError as err:
                    st.error(state.plain(str(err)))
        if lesson_id in shipped:
            st.caption(t("lesson.link"))
            st.code(f"{lesson_bar.base_url()}/lesson?lesson={lesson_id}&step=1", language=None)

# ---------------------------------------------------------------- rooms
with tab_room:
    teaching = lesson_bar.teaching_room()
    if teaching is not None:
        base = lesson_bar.base_url()
        st.subheader(t("room.code_title"))
        st.markdown(f"# `{teaching[0]}`")
        st.markdown(t("room.students", url=f"{base}/lesson"))
        st.code(f"{base}/lesson?room={teaching[0]}", language=None)
        if lesson_bar.RECOVERY_PIN.get():
            with st.expander(t("room.pin_title"), icon=":material/pin:", expanded=True):
                st.warning(t("room.pin_once"))
                pin = lesson_bar.RECOVERY_PIN.get()
                st.code(f"{pin[:4]} {pin[4:]}", language=None)
                st.button(
                    t("room.pin_hide"),
                    key="room_pin_hide",
                    on_click=lesson_bar.RECOVERY_PIN.pop,
                    icon=":material/visibility_off:",
                )
        else:
            st.button(
                t("room.pin_new"),
                key="room_pin_new",
                on_click=lesson_bar.new_recovery_pin,
                icon=":material/pin:",
                help=t("room.pin_new_help"),
            )
        with st.expander(t("room.teacher_link"), icon=":material/key:"):
            st.warning(t("room.teacher_link_once"))
            if st.button(t("room.teacher_link_make"), key="room_link_make", icon=":material/link:"):
                lesson_bar.TEACHER_LINK.set(lesson_bar.teacher_link())
            if lesson_bar.TEACHER_LINK.get():
                st.code(lesson_bar.TEACHER_LINK.get(), language=None)
            st.button(
                t("room.revoke"),
                key="room_revoke",
                on_click=lesson_bar.revoke_other_teachers,
                icon=":material/key_off:",
                help=t("room.revoke_help"),
            )
    elif choices:
        room_lesson = st.selectbox(
            t("room.lesson"), tuple(choices), key="room_pick", format_func=lambda i: choices[i].title_in(lang)
        )
        if st.button(t("room.start"), key="room_start", icon=":material/co_present:"):
            error = lesson_bar.start_room(choices[room_lesson])
            if error:
                lesson_bar.show_room_error(error)
            else:
                show_tab(1)  # the code, big, in this tab
                st.rerun()
    st.divider()
    with st.form("room_join", border=False):
        code = st.text_input(t("room.code"), max_chars=12, placeholder="ABC234", key="room_code_input")
        if st.form_submit_button(t("room.join"), icon=":material/login:"):
            error = lesson_bar.join(code)
            if error:
                lesson_bar.show_room_error(error)
            else:
                st.rerun()
    with st.expander(t("room.take_back"), icon=":material/key:"):
        with st.form("room_take_back", border=False):  # a form: the PIN goes over the websocket, never in a URL
            back_code = st.text_input(t("room.code"), max_chars=12, placeholder="ABC234", key="room_back_code")
            back_pin = st.text_input(t("room.pin"), max_chars=12, type="password", key="room_back_pin")
            if st.form_submit_button(t("room.take_back_button"), icon=":material/key:"):
                error = lesson_bar.take_back(back_code, back_pin)
                if error:
                    lesson_bar.show_room_error(error)
                else:
                    show_tab(1)  # the new PIN, in this tab
                    st.rerun()
    st.caption(t("room.privacy", hours=rooms.ROOM_TTL_S // 3600))

# ---------------------------------------------------------------- write
with tab_write:
    # The browser refuses above 1 MB (Streamlit's smallest per-uploader limit, whole MB only); the
    # stated limit, lessons.MAX_BYTES, is checked here from the upload's size before any byte is read.
    upload = st.file_uploader(
        t("author.open"),
        type=["toml"],
        key="author_upload",
        max_upload_size=1,
        help=t("author.open_help", kib=lessons.MAX_BYTES // 1024),
    )
    if upload is not None and ss.get("_author_loaded") != upload.file_id:
        ss["_author_loaded"] = upload.file_id
        try:
            data = limits.upload_bytes(upload, lessons.MAX_BYTES)
            if data is None:
                raise lessons.LessonError(t("lesson.err.size", size=upload.size, limit=lessons.MAX_BYTES))
            loaded = lessons.parse(data, "draft")
        except lessons.LessonError as err:
            ss["_author_error"] = str(err)
        else:
            lesson_bar.new_draft(loaded.title, loaded.steps)
            ss.pop("_author_error", None)
            show_tab(2)
    if ss.get("_author_error"):
        st.error(state.plain(t("author.bad_file", error=ss["_author_error"])))
    st.caption(t("author.how"))
    with st.expander(t("author.placeholders"), icon=":material/functions:"):
        st.markdown(t("author.placeholders_how"))
        st.markdown(placeholder_table())
    if lesson_bar.draft() is None:
        st.button(t("author.new"), key="author_new", icon=":material/edit_note:", on_click=new_lesson)
    else:
        draft = lesson_bar.draft()
        steps = draft["steps"]
        c1, c2 = st.columns(2)
        title_labels = {"en": "author.title_en", "zh": "author.title_zh"}
        for col, lang_ in zip((c1, c2), LANGS):
            draft["title"][lang_] = col.text_input(
                t(title_labels[lang_]),
                draft["title"].get(lang_, ""),
                key=f"author_title_{lang_}",
                max_chars=lessons.TITLE_CHARS,
            )
        for k, step in enumerate(list(steps)):
            with st.container(border=True):
                h1, h2, h3, h4 = st.columns([6, 1, 1, 1], vertical_alignment="center")
                h1.markdown(f"**{k + 1}. {t('page.' + step['page'])}**")
                h1.code("&".join(f"{key}={value}" for key, value in step["params"].items()) or "—", language=None)
                if h2.button("", key=f"author_up_{step['uid']}", icon=":material/arrow_upward:", disabled=k == 0):
                    steps[k - 1], steps[k] = steps[k], steps[k - 1]
                    st.rerun()
                if h3.button(
                    "", key=f"author_down_{step['uid']}", icon=":material/arrow_downward:", disabled=k == len(steps) - 1
                ):
                    steps[k + 1], steps[k] = steps[k], steps[k + 1]
                    st.rerun()
                if h4.button("", key=f"author_del_{step['uid']}", icon=":material/delete:"):
                    del steps[k]
                    st.rerun()
                texts = {}
                for field in lessons.TEXT_FIELDS:
                    cols = st.columns(len(LANGS))
                    values = {
                        lang_: cols[i].text_area(
                            t(FIELD_LABELS[field, lang_]),
                            step["texts"].get(field, {}).get(lang_, ""),
                            key=f"author_{field}_{lang_}_{step['uid']}",
                            max_chars=lessons.TEXT_CHARS,
                            height=100 if field == "text" else 68,
                        )
                        for i, lang_ in enumerate(LANGS)
                    }
                    if field == "text" or any(v.strip() for v in values.values()):
                        texts[field] = values
                step["texts"] = texts
        text = lessons.dump(draft["title"], [lessons.Step(s_["page"], s_["params"], s_["texts"]) for s_ in steps])
        try:
            ss["_draft_lesson"] = lessons.parse(text, "draft")
            problem = None
        except lessons.LessonError as err:
            ss.pop("_draft_lesson", None)
            problem = str(err)
        if problem:
            st.warning(state.plain(t("author.invalid", error=problem)))
        else:
            st.success(t("author.valid_one") if len(steps) == 1 else t("author.valid", n=len(steps)))
        c1, c2, c3 = st.columns(3)
        c1.download_button(
            t("author.download"),
            text.encode(),
            file_name="lesson.toml",
            mime="application/toml",
            key="author_download",
            icon=":material/download:",
            on_click="ignore",
            disabled=bool(problem),
        )
        if ss.get("_draft_lesson") is not None:
            c2.button(
                t("author.play"),
                on_click=lesson_bar.show_step,
                args=(ss["_draft_lesson"], 0),
                key="author_play",
                icon=":material/play_arrow:",
            )
        if c3.button(t("author.discard"), key="author_discard", icon=":material/delete_forever:"):
            lesson_bar.discard_draft()
            for key in ("_draft_lesson", "_author_error"):
                ss.pop(key, None)
            st.rerun()
