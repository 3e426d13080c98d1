"""The string catalogue: each language's text of every key, filled by :func:`register` from the
modules that own the words (explorer/i18n/shared.py, explorer/i18n/messages.py, each page's
views/<page>/strings.py, registered by views/registry.py, and the classroom's
explorer/classroom/strings.py, registered by explorer/classroom/lessons.py). A module's words are a
dict ``{key: {"en": text, "zh": text}}``: the English and the Chinese of a key side by side."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

LANGS = ("en", "zh")
_TEXTS: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}


def register(strings: dict[str, dict[str, str]]) -> None:
    """Add a module's words; ValueError for an unknown language or a key registered twice with
    other words (two owners of one key)."""
    for key, texts in strings.items():
        for lang, text in texts.items():
            if lang not in _TEXTS:
                raise ValueError(f"string {key!r}: unknown language {lang!r} (known: {', '.join(LANGS)})")
            if _TEXTS[lang].get(key, text) != text:
                raise ValueError(f"string {key!r} ({lang}) is registered twice with different words")
            _TEXTS[lang][key] = text


def catalogue(lang: str) -> dict[str, str]:
    """Every string of language ``lang`` by key, as registered so far (a live view: do not modify)."""
    return _TEXTS[lang]


_RUN_LANGUAGE = "_probcore_language"  # (the run's mark, its language), kept on the script run's context


def _run_mark(ctx) -> object | None:
    """An object Streamlit makes afresh for each script run (of the app or of a fragment) and keeps
    for that run: ScriptRunContext.reset() gives the context a new fragment coordinator. None
    outside a run (or should Streamlit drop it: then nothing is kept)."""
    return getattr(ctx, "parallel_coordinator", None) if ctx is not None else None


def language() -> str:
    """The session's language (``st.session_state["lang"]``, a sidebar control kept in the URL), read
    from the session once per script run: every string and label asks for it (about 200 times a
    Compare step, each a session-state read). The sidebar's selector changes it before a run starts;
    code that sets it during a run (the URL read on a session's first run, Reset) calls
    :func:`forget_language`."""
    ctx = get_script_run_ctx()
    mark = _run_mark(ctx)
    kept = getattr(ctx, _RUN_LANGUAGE, None)
    if mark is not None and kept is not None and kept[0] is mark:
        return kept[1]
    lang = st.session_state.get("lang", LANGS[0])
    lang = lang if lang in _TEXTS else LANGS[0]
    if mark is not None:
        setattr(ctx, _RUN_LANGUAGE, (mark, lang))  # holds the mark: no later run's can be mistaken for it
    return lang


def forget_language() -> None:
    """The session's language was just set during this run: the next :func:`language` reads it again."""
    ctx = get_script_run_ctx()
    if ctx is not None and hasattr(ctx, _RUN_LANGUAGE):
        delattr(ctx, _RUN_LANGUAGE)
