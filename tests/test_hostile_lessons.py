"""Hostile input, issue 25 findings 4 and 5: lesson text that cannot reach outside, and a lesson
file that is no CPU sink. Costs are this process's CPU time (time.process_time), not wall time, so
the other jobs of a shared machine do not count."""

from __future__ import annotations

import time

import pytest
import torch

from explorer.classroom import lessons


def lesson(text_en: str, params: str = 'logits = "1, 0"', page: str = "compare") -> str:
    return (
        f'title_en = "T"\ntitle_zh = "T"\n\n[[step]]\npage = "{page}"\nparams = {{ {params} }}\n'
        f"text_en = '''\n{text_en}'''\ntext_zh = \"z\"\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        "See [notes][a].\n\n[a]: https://example.com/notes",
        "A pixel: ![pixel][b]\n\n[b]: https://example.com/p.png",
        "Shorthand ![pixel] then\n[pixel]: https://example.com/p.png",
        "  [c]: https://example.com/c",
    ],
)
def test_reference_style_links_and_images_are_refused(text):
    with pytest.raises(lessons.LessonError, match="markup"):
        lessons.parse(lesson(text), "refs")


def test_free_text_through_a_placeholder_cannot_make_a_link_or_an_image():
    """attention_query is free text: {{param:attention_query}} once put its text in the narration as
    Markdown, so a link or an image went past the markup check (which reads the template only)."""
    hostile = "![x](https://example.com/p.png) [y](https://example.com)"
    parsed = lessons.parse(
        lesson("Query: {{param:attention_query}}.", f"attention_query = '{hostile}'", page="attention"), "query"
    )
    shown = lessons.resolve(parsed.steps[0].texts["text"]["en"], parsed.steps[0])
    assert "](" not in shown and "![" not in shown, shown


def cpu(fn, *args) -> float:
    """CPU seconds of fn(*args) on one torch thread, as a served worker runs
    (explorer/serving/process.py: one_torch_thread): with two, OpenMP's spin-waits under load add CPU time that is not the work's."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        start = time.process_time()
        fn(*args)
        return time.process_time() - start
    finally:
        torch.set_num_threads(threads)


def test_the_rank_placeholder_is_bounded_like_the_page():
    """{{rank:softmax}} at n = 1000: an uncached 1000 x 1000 SVD per placeholder before."""
    text = lesson("Rank {{rank:softmax}}.", 'preset = "random", n = "1000"')
    with pytest.raises(lessons.LessonError, match="rank"):
        lessons.parse(text, "big")
    assert cpu(lambda: pytest.raises(lessons.LessonError, lessons.parse, text, "big")) < 1.0


def test_a_file_of_heavy_placeholders_costs_once_and_not_per_rerun():
    """40 {{rank:...}} at the largest n the rank allows: the first read within the run budget, a
    second read (the next rerun of the Lessons page) almost free. Before: 21.6 s, then 7.0 s a rerun
    (at n = 1000)."""
    names = ["softmax", "sparsemax", "entmax15", "taylor_softmax"]
    body = " ".join(f"{{{{rank:{names[i % len(names)]}}}}}" for i in range(40))
    text = lesson(body, 'preset = "random", n = "200", seed = "7"')
    first = cpu(lessons.parse, text, "heavy")
    again = cpu(lessons.parse, text, "heavy")
    assert first < 2.0, first
    assert again < 0.3, again


def test_placeholders_per_file_are_bounded():
    text = lesson(" ".join("{{n}}" for _ in range(lessons.MAX_PLACEHOLDERS + 1)))
    with pytest.raises(lessons.LessonError, match="placeholders"):
        lessons.parse(text, "many")
