"""explorer/drawing/prose.py: a section's heading, paragraphs and formulas in one Markdown element
that Streamlit draws as st.subheader (h3) and st.latex (the same $$ body) would."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from explorer.drawing import prose

LATEX = r"p_i = \frac{e^{x_i}}{\sum_j e^{x_j}}"


def test_formula_is_the_markdown_body_st_latex_sends():
    at = AppTest.from_string(f"import streamlit as st\nst.latex(r'''  {LATEX}  ''')").run()
    assert prose.formula(f"  {LATEX}  ") == at.latex[0].proto.body


def test_section_is_one_markdown_element_heading_first_blocks_as_paragraphs():
    at = AppTest.from_string(
        "from explorer.drawing import prose\n"
        f"prose.section('Gumbel-max', 'Some *text*.', prose.formula(r'{LATEX}'))\n"
        f"prose.section(None, 'Only text.', '', prose.formula(r'{LATEX}'))\n"
    ).run()
    assert not at.exception
    first, second = (m.value for m in at.markdown)
    assert len(at.markdown) == 2 and not at.subheader and not at.latex
    assert first == f"### Gumbel-max\n\nSome *text*.\n\n$$\n{LATEX}\n$$"
    assert first.splitlines()[0] == prose.HEADING + "Gumbel-max"  # the h3 of st.subheader
    assert second == f"Only text.\n\n$$\n{LATEX}\n$$"  # no heading, the empty block left out
