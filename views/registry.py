"""The page registry: every page of the explorer declared once.

A :class:`Page` names its id (the name a lesson file uses), its script, its URL path, its menu
section, the i18n key of its title, its icon and its own controls (:class:`Option`: type, range,
default; the query parameters a shared link carries). app.py builds the navigation from
:data:`PAGES` (:func:`navigation`), the views draw their controls from their entry
(``PAGES["simplex"].option("radius")``), the lesson validator checks a step against it, and
the tests and benchmarks list the pages from it. Adding a page: its folder under views/ and one
entry below (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from explorer.drawing import ui
from explorer.i18n import language, register, t
from explorer.session.keys import SessionKey
from explorer.session.state import SEED_MAX, Option
from probcore._validate import NOISES
from probcore.check import MAX_ROWS
from probcore.registry import MAPPINGS
from views.attention import strings as attention_strings
from views.check import compute as check_compute
from views.check import strings as check_strings
from views.compare import strings as compare_strings
from views.jacobian import strings as jacobian_strings
from views.lesson import strings as lesson_strings
from views.loss_landscape import strings as loss_landscape_strings
from views.losses import strings as losses_strings
from views.margin import strings as margin_strings
from views.overconfidence import strings as overconfidence_strings
from views.perturb import compute as perturb_compute
from views.perturb import strings as perturb_strings
from views.simplex import strings as simplex_strings
from views.smooth_max import compute as smooth_compute
from views.smooth_max import strings as smooth_max_strings
from views.sparse_from_exp import strings as sparse_from_exp_strings
from views.sweeps import strings as sweeps_strings
from views.vocab import strings as vocab_strings

SECTIONS = ("nav.core", "nav.topics", "nav.tools")  # the menu's sections, in order (i18n keys)


@dataclass(frozen=True)
class Page:
    """A page of the explorer: ``url_path`` "" is the home page; ``in_lessons``: a lesson step may
    show it (not the lesson editor itself)."""

    id: str
    script: str  # relative to app.py
    url_path: str
    section: str  # one of SECTIONS
    title: str  # i18n key
    icon: str
    options: tuple[Option, ...] = ()
    in_lessons: bool = True
    strings: dict[str, dict[str, str]] = field(
        default_factory=dict, compare=False
    )  # its words, views/<page>/strings.py

    def option(self, key: str) -> Option:
        """The page's own control ``key`` (KeyError for one it does not declare)."""
        for option in self.options:
            if option.key == key:
                return option
        raise KeyError(f"page {self.id!r} declares no option {key!r}")


def _check_options() -> tuple[Option, ...]:
    """The Check page's controls: example, mapping, tolerances, one per registry parameter of the
    mappings it checks (check_<parameter>), target, source, row."""
    params = {p.name: p for name in check_compute.CHECK_MAPPINGS for p in MAPPINGS[name].params}  # first wins
    return (
        Option("check_example", "choice", check_compute.DEFAULT_EXAMPLE, ("none", *check_compute.CHECK_EXAMPLES)),
        Option("check_mapping", "choice", "softmax", check_compute.CHECK_MAPPINGS),
        Option("check_atol", "float", 1e-6, low=0.0, high=1.0),
        Option("check_rtol", "float", 1e-5, low=0.0, high=1.0),
        *(
            Option(
                f"check_{p.name}",
                p.kind,
                float(p.default) if p.kind == "float" and p.default is not None else p.default,
                tuple(p.choices),
                low=p.low,
                high=p.high,
            )
            for p in params.values()
        ),
        Option("check_target", "int", 0, low=0, high=10**6),
        Option("check_source", "choice", "paste", ("paste", "upload")),
        Option("check_row", "int", None, low=0, high=MAX_ROWS - 1),
    )


PAGES: dict[str, Page] = {
    page.id: page
    for page in (
        Page(
            "compare",
            "views/compare/page.py",
            "",
            "nav.core",
            "page.compare",
            ":material/bar_chart:",
            (Option("log", "bool", False), Option("formula", "choice", None, tuple(MAPPINGS))),
            strings=compare_strings.STRINGS,
        ),
        Page(
            "simplex",
            "views/simplex/page.py",
            "simplex",
            "nav.core",
            "page.simplex",
            ":material/change_history:",
            (Option("radius", "float", 4.0, low=0.5, high=20.0),),
            strings=simplex_strings.STRINGS,
        ),
        Page(
            "jacobian",
            "views/jacobian/page.py",
            "jacobian",
            "nav.core",
            "page.jacobian",
            ":material/grid_on:",
            (ui.figures_option("heatmaps"),),
            strings=jacobian_strings.STRINGS,
        ),
        Page(
            "loss",
            "views/loss_landscape/page.py",
            "loss",
            "nav.core",
            "page.loss",
            ":material/landscape:",
            (Option("plane", "float", 4.0, low=1.0, high=20.0), ui.figures_option("planes")),
            strings=loss_landscape_strings.STRINGS,
        ),
        Page(
            "sweeps",
            "views/sweeps/page.py",
            "sweeps",
            "nav.core",
            "page.sweeps",
            ":material/animation:",
            strings=sweeps_strings.STRINGS,
        ),
        Page(
            "perturb",
            "views/perturb/page.py",
            "perturb",
            "nav.topics",
            "page.perturb",
            ":material/casino:",
            (
                Option("perturb_samples", "choice", 1000, perturb_compute.SAMPLE_GRID),
                Option("perturb_noises", "multi", NOISES, NOISES),
                Option(
                    "perturb_tau",
                    "float",
                    1.0,
                    low=perturb_compute.TAU_CHOICES[0],
                    high=perturb_compute.TAU_CHOICES[-1],
                ),
                Option("perturb_draws", "int", 5, low=1, high=12),
            ),
            strings=perturb_strings.STRINGS,
        ),
        Page(
            "margin",
            "views/margin/page.py",
            "margin",
            "nav.topics",
            "page.margin",
            ":material/radar:",
            (
                Option("margin_classes", "int", 4, low=2, high=8),
                Option("margin_m", "float", 0.35, low=0.0, high=1.0),
                Option("margin_s", "float", 30.0, low=1.0, high=64.0),
                Option("margin_angle", "float", 35.0, low=-180.0, high=180.0),
                Option("margin_target", "int", 0, low=0, high=7),
            ),
            strings=margin_strings.STRINGS,
        ),
        Page(
            "overconfidence",
            "views/overconfidence/page.py",
            "overconfidence",
            "nav.topics",
            "page.overconfidence",
            ":material/trending_up:",
            (
                Option("oc_eps", "float", 0.1, low=1e-4, high=5.0),
                Option("oc_k", "int", 10, low=2, high=10**6),
                Option("oc_steps", "int", 100, low=10, high=500),
                Option("oc_classes", "int", 20, low=5, high=100),
                Option("oc_train_k", "int", 5, low=2, high=100),
                Option("oc_seed", "int", 0, low=0, high=10**6),
            ),
            strings=overconfidence_strings.STRINGS,
        ),
        Page(
            "vocab",
            "views/vocab/page.py",
            "vocab",
            "nav.topics",
            "page.vocab",
            ":material/account_tree:",
            (
                Option("vocab_n", "int", 1000, low=2, high=100_000),
                Option("vocab_s", "float", 1.0, low=0.0, high=3.0),
                Option("vocab_sigma", "float", 1.0, low=0.0, high=4.0),
                Option("vocab_seed", "int", 0, low=0, high=SEED_MAX),
                Option("vocab_train_k", "int", 16, low=1, high=256),
                Option("vocab_train_m", "int", 64, low=1, high=1024),
                Option("vocab_train_steps", "int", 150, low=20, high=400),
                Option("vocab_train_offset", "float", 3.0, low=-5.0, high=5.0),
            ),
            strings=vocab_strings.STRINGS,
        ),
        Page(
            "attention",
            "views/attention/page.py",
            "attention",
            "nav.topics",
            "page.attention",
            ":material/visibility:",
            (
                Option("attention_L", "int", 6, low=2, high=16),
                Option("attention_d", "int", 4, low=1, high=8),
                Option("attention_queries", "int", 1, low=1, high=6),
                Option("attention_seed", "int", 0, low=0, high=SEED_MAX),
                Option("attention_scale", "float", 1.0, low=0.1, high=10.0),
                Option("attention_alpha", "float", 1.5, low=1.0, high=4.0),
                Option("attention_k", "int", 2, low=1, high=16),
                Option("attention_query", "text", ""),
            ),
            strings=attention_strings.STRINGS,
        ),
        Page(
            "losses",
            "views/losses/page.py",
            "losses",
            "nav.topics",
            "page.losses",
            ":material/functions:",
            (
                Option("losses_n", "int", 10, low=2, high=1000),
                Option("losses_log_eps", "float", -3.0, low=-6.0, high=-0.5),
                Option("losses_sparse_n", "int", 3, low=2, high=20),
                Option("losses_alpha", "float", 1.5, low=1.1, high=4.0),
                Option("losses_labels", "int", 2, low=1, high=12),
                Option("losses_steps", "int", 40, low=5, high=200),
            ),
            strings=losses_strings.STRINGS,
        ),
        Page(
            "smooth_max",
            "views/smooth_max/page.py",
            "smooth-max",
            "nav.topics",
            "page.smooth_max",
            ":material/show_chart:",
            (
                Option("smooth_log_T", "float", 0.0, low=-2.0, high=2.0),
                Option("smooth_n", "int", 5, low=3, high=12),
                Option("smooth_draws", "int", 500, low=50, high=2000),
                Option("smooth_shift", "float", 3.0, low=-10.0, high=10.0),
                Option("smooth_seed", "int", 0, low=0, high=1000),
                Option("smooth_beta", "float", 1.0, low=-5.0, high=5.0),
                Option("smooth_sat_seed", "int", 0, low=0, high=1000),
                Option("smooth_log2_d", "int", 6, low=0, high=len(smooth_compute.DIMS) - 1),
            ),
            strings=smooth_max_strings.STRINGS,
        ),
        Page(
            "sparse_from_exp",
            "views/sparse_from_exp/page.py",
            "sparse-from-exp",
            "nav.topics",
            "page.sparse_from_exp",
            ":material/content_cut:",
            (Option("sfe_beta", "float", 1.0, low=0.05, high=1.0),),
            strings=sparse_from_exp_strings.STRINGS,
        ),
        Page(
            "check",
            "views/check/page.py",
            "check",
            "nav.tools",
            "page.check",
            ":material/fact_check:",
            _check_options(),
            strings=check_strings.STRINGS,
        ),
        Page(
            "lesson",
            "views/lesson/page.py",
            "lesson",
            "nav.tools",
            "page.lesson",
            ":material/school:",
            in_lessons=False,
            strings=lesson_strings.STRINGS,
        ),
    )
}

for _page in PAGES.values():
    register(_page.strings)


def lesson_pages() -> dict[str, Page]:
    """The pages a lesson step may show, by id."""
    return {name: page for name, page in PAGES.items() if page.in_lessons}


def by_path(url_path: str) -> Page | None:
    """The page at ``url_path`` ("" for home), or None."""
    return next((page for page in PAGES.values() if page.url_path == url_path), None)


def all_options() -> dict[str, Option]:
    """Every page's own controls, by key (a key belongs to one page)."""
    return {option.key: option for page in PAGES.values() for option in page.options}


NAVIGATION = SessionKey[tuple]("_navigation")  # (language, st.navigation's argument) of this session

APP_NAME = "probcore explorer"


def window_title(page_title: str) -> str:
    """The browser window's title of a page (its title in the session's language, then the app's name)."""
    return f"{page_title} · {APP_NAME}"


def navigation() -> dict[str, list]:
    """st.navigation's argument: the pages by section, titles in the session's language. Built once
    per session and language (st.Page resolves its script's path: a few ms a run); per session, not
    per process, because st.navigation marks the Page objects it hands out."""
    lang = language()
    built = NAVIGATION.get()
    if built is None or built[0] != lang:
        built = (
            lang,
            {
                t(section): [
                    st.Page(
                        page.script,
                        title=t(page.title),
                        icon=page.icon,
                        url_path=page.url_path or None,
                        default=not page.url_path,
                    )
                    for page in PAGES.values()
                    if page.section == section
                ]
                for section in SECTIONS
            },
        )
        NAVIGATION.set(built)
    return built[1]
