"""The Compare page's own session key: the logits from which "Add 10 to every logit" was pressed."""

from __future__ import annotations

from explorer.session.keys import SessionKey

SHIFTED = SessionKey[tuple]("_compare_shifted")  # (x before the button, the logits it gave)


def remember_shift(before: tuple, after: tuple) -> None:
    """Called by the button as it turns the logits ``before`` into ``after`` (x + 10, as written)."""
    SHIFTED.set((tuple(float(v) for v in before), tuple(float(v) for v in after)))


def shift_pair(x: tuple) -> tuple[tuple, tuple]:
    """(before, after) of the shift the predict answer quotes: the button's own (before, x) when
    the logits are still the ones it gave (the move the bars just showed), else (x, x + 10)."""
    pressed = SHIFTED.get()
    if pressed is not None and pressed[1] == tuple(float(v) for v in x):
        return pressed
    return tuple(x), tuple(float(v) + 10.0 for v in x)
