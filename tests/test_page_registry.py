"""The page registry (views/registry.py): every page declared once; a page added with its own
script and one registry entry is in the navigation, its controls live in the URL (a hostile value
gives an inline message) and lessons may show it, with nothing else to edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.classroom import lessons
from explorer.i18n import catalogue
from explorer.session.state import OPTIONS, Option
from views import registry

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
TIMEOUT = 90

TINY_SCRIPT = """\
import streamlit as st

from explorer.session import state
from views.registry import PAGES

level = state.page_slider(PAGES["tiny"].option("tiny_level"), "level", 1)
st.markdown(f"tiny level {level}")
"""


def test_every_page_is_declared_once_and_completely():
    """Unique ids, paths and scripts; a known section; the title in every language; each own
    control belongs to one page and never shadows a session-wide one."""
    pages = list(registry.PAGES.values())
    assert len({p.url_path for p in pages}) == len({p.script for p in pages}) == len(pages)
    assert [p.url_path for p in pages].count("") == 1  # one home page
    for page in pages:
        assert (ROOT / page.script).is_file(), page.script
        assert page.section in registry.SECTIONS
        for lang in ("en", "zh"):
            assert page.title in catalogue(lang), (page.id, lang)
    keys = [o.key for p in pages for o in p.options]
    assert len(keys) == len(set(keys))
    assert not set(keys) & set(OPTIONS)


@pytest.fixture
def tiny(tmp_path, monkeypatch) -> registry.Page:
    """A small page: its script and one registry entry, nothing else."""
    script = tmp_path / "tiny_page.py"
    script.write_text(TINY_SCRIPT)
    page = registry.Page(
        "tiny",
        str(script),
        "tiny",
        "nav.tools",
        "page.tiny",
        ":material/star:",
        (Option("tiny_level", "int", 2, low=0, high=5),),
    )
    monkeypatch.setitem(registry.PAGES, "tiny", page)
    return page


def _open(page: registry.Page, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(params)
    at.run()
    at.switch_page(page.script).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_registered_page_is_in_the_navigation_and_its_option_in_the_url(tiny):
    at = _open(tiny, tiny_level="4")
    assert "tiny level 4" in [m.value for m in at.markdown]  # the navigation ran the new page
    assert at.session_state["tiny_level"] == 4
    assert at.query_params["tiny_level"] == ["4"] or at.query_params["tiny_level"] == "4"
    at.slider(key="tiny_level").set_value(1).run()
    assert "tiny level 1" in [m.value for m in at.markdown]


def test_a_registered_page_refuses_a_hostile_url_value_inline(tiny):
    at = _open(tiny, tiny_level="9'><script>")
    assert any("tiny\\_level" in w.value or "tiny_level" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.session_state["tiny_level"] == 2  # the declared default


def test_a_registered_page_is_checked_by_the_lesson_validator(tiny):
    lesson = 'title_en = "Tiny"\ntitle_zh = "小"\n\n[[step]]\npage = "tiny"\nparams = {{ {params} }}\ntext_en = "x"\ntext_zh = "x"\n'
    step = lessons.parse(lesson.format(params="tiny_level = 3"), "tiny").steps[0]
    assert step.page == "tiny" and step.values() == {"tiny_level": 3}
    with pytest.raises(lessons.LessonError, match="tiny_level"):
        lessons.parse(lesson.format(params="tiny_level = 9"), "tiny")
    with pytest.raises(lessons.LessonError, match="radius"):  # another page's control
        lessons.parse(lesson.format(params="radius = 2"), "tiny")
    assert "tiny" in registry.lesson_pages()
