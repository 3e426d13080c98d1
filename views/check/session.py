"""The Check page's own session key: which example its widgets were last filled from."""

from __future__ import annotations

from explorer.session.keys import SessionKey

FILLED = SessionKey[str]("_check_filled")  # the example the widgets hold, "none" once edited by hand


def forget_filled_example() -> None:
    """The next run of the page fills its example in again (after a lesson step set the page's
    controls: explorer/classroom/lesson_bar.py)."""
    FILLED.set("none")
