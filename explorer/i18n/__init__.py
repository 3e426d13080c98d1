"""Every interface string: ``t(key, **fields)`` in the session's language.

The words live with their owner, the English and the Chinese of a key side by side: each page's in
views/<page>/strings.py (registered by views/registry.py), the lesson bar's and the rooms' in
explorer/classroom/strings.py (registered by explorer/classroom/lessons.py), the shared ones in
explorer/i18n/shared.py, probcore's messages in explorer/i18n/messages.py; explorer/i18n/catalogue.py
holds them by language. A key missing from a language falls back to English, a key missing
everywhere shows as itself. Mapping and parameter names come from the registry unless a language
overrides them (``mapping.<name>``, ``param.<name>``, ``help.<name>``).
"""

from __future__ import annotations

from explorer.i18n import shared
from explorer.i18n.catalogue import LANGS, catalogue, forget_language, language, register
from explorer.i18n.messages import MESSAGE_PATTERNS, localize, message_id
from probcore.registry import MAPPINGS

__all__ = [
    "EN",
    "LANGS",
    "MESSAGE_PATTERNS",
    "ZH",
    "catalogue",
    "forget_language",
    "language",
    "localize",
    "mapping_label",
    "message_id",
    "param_help",
    "param_label",
    "register",
    "t",
]

register(shared.STRINGS)
EN, ZH = catalogue("en"), catalogue("zh")  # live views of the catalogue (every registered key)


def t(key: str, /, **fields) -> str:
    """The interface string ``key`` in the current language, formatted with ``fields``; a field
    named ``error`` or ``cause`` (an exception: a probcore error by its code; or a message from
    probcore's checker) is shown in that language too (localize)."""
    text = catalogue(language()).get(key) or EN.get(key) or key
    for name in ("error", "cause"):
        if isinstance(fields.get(name), (str, BaseException)):
            fields[name] = localize(fields[name])
    return text.format(**fields) if fields else text


def mapping_label(name: str) -> str:
    return catalogue(language()).get(f"mapping.{name}") or MAPPINGS[name].label


def param_help(name: str) -> str:
    """The help text of a registry parameter: ``help.<name>`` of the language, else the registry's."""
    helps = [p.help for m in MAPPINGS.values() for p in m.params if p.name == name]
    return catalogue(language()).get(f"help.{name}") or (helps[0] if helps else "")


def param_label(name: str) -> str:
    labels = [p.label for m in MAPPINGS.values() for p in m.params if p.name == name]
    return catalogue(language()).get(f"param.{name}") or (labels[0] if labels else name)
