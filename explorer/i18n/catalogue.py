"""The string catalogue: each language's text of every key, filled by :func:`register` from the
modules that own the words (explorer/i18n/shared.py, explorer/i18n/messages.py, and each page's
views/<page>/strings.py, registered by views/registry.py). A module's words are a dict
``{key: {"en": text, "zh": text}}``: the English and the Chinese of a key side by side."""
from __future__ import annotations

import streamlit as st

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


def language() -> str:
    """The session's language (``st.session_state["lang"]``, a sidebar control kept in the URL)."""
    lang = st.session_state.get("lang", LANGS[0])
    return lang if lang in _TEXTS else LANGS[0]
