"""The words of the Lessons page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.lesson": {
        "en": "Lessons",
        "zh": "课程",
    },
}
