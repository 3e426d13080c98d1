"""A page's static prose in as few elements as its structure allows.

Each element a script run sends costs the worker CPU (about 0.2 ms, in the script thread and in the
event loop that sends it; bench/results/element_cost_2026-11-28.md), so a section's heading, its paragraphs and its display
formulas go out as one ``st.markdown``: ``### heading`` is the h3 ``st.subheader`` draws (with its
anchor), and ``$$ ... $$`` the KaTeX display ``st.latex`` draws (st.latex sends exactly that
Markdown body; its LATEX type only sizes and centres the wrapper, for a help icon beside it: KaTeX
centres display math either way, and these formulas have no help).
"""

from __future__ import annotations

import streamlit as st

HEADING = "### "  # the level st.subheader draws (h3)


def formula(latex: str) -> str:
    """A display formula as st.latex writes it into its Markdown body: ``$$\\n<latex>\\n$$``."""
    return f"$$\n{latex.strip()}\n$$"


def section_text(heading: str | None, *blocks: str) -> str:
    """The Markdown of a section: its heading (h3; none when None), then each block (a paragraph or a
    :func:`formula`) as a paragraph of its own."""
    return "\n\n".join([*([HEADING + heading] if heading else []), *(b for b in blocks if b)])


def section(heading: str | None, *blocks: str) -> None:
    """A section's heading, paragraphs and formulas as one element (:func:`section_text`)."""
    st.markdown(section_text(heading, *blocks))
