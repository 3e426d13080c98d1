"""Hostile input, issue 25 finding 7: what an uploader states, what the browser refuses and what the
server refuses agree. Before: the Open-lesson uploader said 1 MB while the page refused above 64 KiB
only after reading the whole file (the server accepted up to 64 MiB).

- The lesson uploader states lessons.MAX_BYTES (64 KiB); the page checks the upload's size before
  reading a byte (the browser's own limit cannot go below Streamlit's 1 MB; the server's is global).
- The Check page's uploaders: stated = browser = server = probcore.check.MAX_FILE_BYTES (64 MiB)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from explorer.classroom import lessons
from explorer.serving import limits
from probcore.check import MAX_FILE_BYTES
from tests.helpers import run_app
from views.registry import PAGES

ROOT = Path(__file__).resolve().parents[1]


class UnreadUpload:
    """An upload the page may size but must not read (every read fails the test)."""

    def __init__(self, size: int):
        self.size = size

    def getvalue(self):
        raise AssertionError("an oversized upload was read")

    read = getbuffer = getvalue


class Upload(UnreadUpload):
    def getvalue(self):
        return b"x" * self.size


def uploaders(page: str) -> list:
    at = run_app(PAGES[page].script, **({"check_source": "upload"} if page == "check" else {}))
    assert not at.exception, [e.value for e in at.exception]
    return [e.proto for e in at.get("file_uploader")]


def test_an_upload_over_the_limit_is_refused_unread():
    assert limits.upload_bytes(UnreadUpload(lessons.MAX_BYTES + 1), lessons.MAX_BYTES) is None
    assert limits.upload_bytes(UnreadUpload(MAX_FILE_BYTES + 1), MAX_FILE_BYTES) is None
    assert limits.upload_bytes(Upload(lessons.MAX_BYTES), lessons.MAX_BYTES) == b"x" * lessons.MAX_BYTES


def test_the_lesson_uploader_states_the_limit_the_page_applies():
    (proto,) = uploaders("lesson")
    assert f"{lessons.MAX_BYTES // 1024} KiB" in proto.help  # what the interface states
    assert proto.max_upload_size_mb == 1  # the browser: Streamlit's smallest limit (whole MB)
    assert "max_upload_size=1" in (ROOT / "views/lesson/page.py").read_text()
    assert "upload_bytes(upload, lessons.MAX_BYTES)" in (ROOT / "views/lesson/page.py").read_text()


def test_the_check_uploaders_state_what_the_browser_and_the_server_refuse():
    config = tomllib.loads((ROOT / ".streamlit/config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 2**20 == MAX_FILE_BYTES  # the server (MiB, as Streamlit counts)
    protos = uploaders("check")
    assert len(protos) == 2
    for proto in protos:
        assert proto.max_upload_size_mb * 2**20 == MAX_FILE_BYTES  # the browser
        assert f"{MAX_FILE_BYTES // 2**20} MiB" in proto.help  # the interface
    assert "upload_bytes(upload, MAX_FILE_BYTES)" in (ROOT / "views/check/page.py").read_text()
