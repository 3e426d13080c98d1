"""Check my numbers: paste (or upload) logits and the probabilities your own code produced, pick
the mapping and its parameters, and get a verdict per row from probcore.check (ok / mismatch, the
largest error, which entries differ, the likely cause), a chart of one row against the reference,
and the reference output to download. Examples fill in a correct and a subtly wrong implementation."""

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from explorer import compute
from explorer.drawing import ui
from explorer.drawing.colors import mapping_color
from explorer.i18n import localize, mapping_label, param_help, param_label, t
from explorer.session import state
from explorer.serving import limits
from probcore.check import CAUSES, MAX_FILE_BYTES, MAX_ROWS, summary
from probcore.registry import MAPPINGS
from views.check import compute as check_compute
from views.check import session as check_session
from views.registry import PAGES
from views.check import figures as check_figures

declared = PAGES["check"].option  # this page's own controls (views/registry.py)

EXAMPLES = ("none", *check_compute.CHECK_EXAMPLES)
SOURCES = ("paste", "upload")
SOURCE_LABELS = {"paste": "check.source_paste", "upload": "check.source_upload"}
EXAMPLE_LABELS = {
    "none": "check.ex_none",
    "softmax_ok": "check.ex_softmax_ok",
    "softmax_no_max": "check.ex_softmax_no_max",
    "softmax_forgot_temperature": "check.ex_softmax_forgot_temperature",
    "log_softmax": "check.ex_log_softmax",
    "sparsemax_ok": "check.ex_sparsemax_ok",
    "sparsemax_off_by_one": "check.ex_sparsemax_off_by_one",
}
CAUSE_LABELS = {
    "none": "check.cause_none",
    "unexplained": "check.cause_unexplained",  # a row ok or unexplained
    **{cause: f"check.cause_{cause}" for cause in CAUSES},
}  # every cause of probcore.check
PARAMS = {p.name: p for name in check_compute.CHECK_MAPPINGS for p in MAPPINGS[name].params}  # first definition wins
TEXT_KEYS = ("check_logits_text", "check_probs_text")
DIFFERING_SHOWN = 12

ui.header("page.check", "check.intro")
st.markdown(t("check.explain"))
ss = st.session_state


def fill_example(name: str) -> None:
    """Put the example's logits, outputs, mapping and parameters into the (not yet drawn) widgets.
    On the session's first run the settings named in the URL stay (page_option checks them)."""
    mapping, params, x, p = check_compute.check_example(name)
    keep = set(state.opened_url()) if not check_session.FILLED.is_set() else set()
    settings = {
        "check_source": "paste",
        "check_mapping": mapping,
        "check_row": None,
        **{f"check_{pname}": declared(f"check_{pname}").default for pname in PARAMS},
        **{f"check_{pname}": value for pname, value in params.items()},
    }
    for key, value in settings.items():
        if key not in keep:
            ss[key] = value
    ss[TEXT_KEYS[0]], ss[TEXT_KEYS[1]] = check_compute.format_rows(x), check_compute.format_rows(p)
    check_session.FILLED.set(name)


def to_custom() -> None:
    """Edited by hand: the numbers are no longer the example's."""
    ss["check_example"] = "none"
    check_session.forget_filled_example()


# ---------------------------------------------------------------- example, mapping, parameters
example = state.page_option(
    declared("check_example"),
    lambda key: st.selectbox(
        t("check.example"),
        EXAMPLES,
        key=key,
        format_func=lambda e: t(EXAMPLE_LABELS[e]),
        help=t("check.example_help"),
        persist_state="session",
    ),
)
if example != "none" and check_session.FILLED.get() != example:
    fill_example(example)

c1, c2, c3 = st.columns([2, 1, 1])
mapping = state.page_option(
    declared("check_mapping"),
    lambda key: c1.selectbox(
        t("check.mapping"),
        check_compute.CHECK_MAPPINGS,
        key=key,
        format_func=mapping_label,
        on_change=to_custom,
        persist_state="session",
    ),
)
atol = state.page_option(
    declared("check_atol"),
    lambda key: c2.number_input(
        t("check.atol"),
        min_value=0.0,
        max_value=1.0,
        step=1e-6,
        format="%g",
        key=key,
        help=t("check.tol_help"),
        persist_state="session",
    ),
)
rtol = state.page_option(
    declared("check_rtol"),
    lambda key: c3.number_input(
        t("check.rtol"),
        min_value=0.0,
        max_value=1.0,
        step=1e-5,
        format="%g",
        key=key,
        help=t("check.tol_help"),
        persist_state="session",
    ),
)

spec = MAPPINGS[mapping]
params: dict = {}
widgets = list(spec.params) + (["target"] if spec.needs_target else [])
cols = st.columns(max(len(widgets), 1))
for col, p in zip(cols, spec.params):
    option = declared(f"check_{p.name}")

    def render(key, p=p, col=col):
        if p.kind == "choice":
            return col.selectbox(
                param_label(p.name),
                p.choices,
                key=key,
                help=param_help(p.name),
                on_change=to_custom,
                persist_state="session",
            )
        if p.kind == "bool":
            return col.toggle(
                param_label(p.name), key=key, help=param_help(p.name), on_change=to_custom, persist_state="session"
            )
        if p.kind == "int":
            return col.number_input(
                param_label(p.name),
                value=None,
                step=int(p.step or 1),
                key=key,
                help=param_help(p.name),
                on_change=to_custom,
                persist_state="session",
            )
        return col.number_input(
            param_label(p.name),
            value=None,
            step=float(p.step or 0.1),
            format="%g",
            key=key,
            help=param_help(p.name),
            on_change=to_custom,
            persist_state="session",
        )

    value = state.page_option(option, render)
    if value is not None:
        params[p.name] = value
if spec.needs_target:
    params["target"] = state.page_option(
        declared("check_target"),
        lambda key: cols[-1].number_input(
            t("check.target"),
            min_value=0,
            step=1,
            key=key,
            help=t("check.target_help"),
            on_change=to_custom,
            persist_state="session",
        ),
    )
st.caption(t("check.params_note"))

# ---------------------------------------------------------------- the numbers
source = state.page_option(
    declared("check_source"),
    lambda key: st.radio(
        t("check.source"),
        SOURCES,
        key=key,
        horizontal=True,
        format_func=lambda s_: t(SOURCE_LABELS[s_]),
        on_change=to_custom,
        persist_state="session",
    ),
)
x = p = None
left, right = st.columns(2)
if source == "paste":
    for key in TEXT_KEYS:
        ss.setdefault(key, "")
    texts = (
        left.text_area(
            t("check.logits_text"),
            key=TEXT_KEYS[0],
            height=150,
            on_change=to_custom,
            placeholder="1.2, 0.3, -0.5",
            help=t("check.text_help"),
            persist_state="session",
        ),
        right.text_area(
            t("check.probs_text"),
            key=TEXT_KEYS[1],
            height=150,
            on_change=to_custom,
            placeholder="0.6285, 0.2555, 0.1160",
            help=t("check.text_help"),
            persist_state="session",
        ),
    )
    if not any(s_.strip() for s_ in texts):
        st.info(t("check.empty"))
    else:
        parsed = []
        for text, name, container in zip(texts, ("logits", "probs"), (left, right)):
            try:
                parsed.append(check_compute.check_parse_rows(text, name))
            except ValueError as err:
                container.error(state.plain(t("check.bad_input", error=err)), icon="⚠️")
                parsed.append(None)
        x, p = parsed
else:
    files = []
    for container, key, name, label in (
        (left, "check_logits_file", "logits", "check.logits_file"),
        (right, "check_probs_file", "probs", "check.probs_file"),
    ):
        upload = container.file_uploader(
            t(label),
            type=["csv", "npy"],
            key=key,
            max_upload_size=MAX_FILE_BYTES // 2**20,
            help=t("check.file_help", rows=MAX_ROWS, mib=MAX_FILE_BYTES // 2**20),
        )
        array = None
        data = None if upload is None else limits.upload_bytes(upload, MAX_FILE_BYTES)
        if upload is not None and data is None:
            container.error(
                state.plain(t("check.file_too_big", size=upload.size, mib=MAX_FILE_BYTES // 2**20)), icon="⚠️"
            )
        elif upload is not None:
            try:
                array = check_compute.check_load_file(data, upload.name, f"{name} file {state.quote(upload.name)}")
            except ValueError as err:
                container.error(state.plain(t("check.bad_input", error=err)), icon="⚠️")
        files.append(array)
    x, p = files
    if all(f is None for f in files):
        st.info(t("check.empty_upload"))


@ui.fragment
def row_view(verdicts: list, x: np.ndarray, p: np.ndarray, mapping: str) -> None:
    """One row against the reference: a step of its row number reruns only this part."""
    failing = [v.row for v in verdicts if not v.ok]
    chosen = state.page_option(
        declared("check_row"),
        lambda key: st.number_input(
            t("check.row"),
            value=None,
            min_value=0,
            step=1,
            key=key,
            placeholder=t("check.row_placeholder"),
            help=t("check.row_help"),
            persist_state="session",
        ),
    )
    row = (failing[0] if failing else 0) if chosen is None else int(chosen)
    if row >= len(verdicts):
        st.warning(state.plain(t("check.row_range", row=row, rows=len(verdicts))))
        row = failing[0] if failing else 0
    v = verdicts[row]
    user = p[row]
    differing = np.zeros(len(user), dtype=bool)
    differing[list(v.differing)] = True
    index = check_compute.check_view_index(v.reference, user, check_compute.CHECK_TOP_VIEW)
    if len(index) < len(user):
        st.caption(t("check.top_view", top=len(index), n=len(user)))
    verdict = t("check.ok") if v.ok else t("check.mismatch")
    fig = check_figures.check_row_bars(
        index,
        v.reference,
        user,
        differing,
        mapping_color(mapping),
        t("check.fig_reference", mapping=mapping_label(mapping)),
        t("check.fig_title", row=row, verdict=verdict),
    )
    ui.show_figure(
        fig,
        "check_row_bars",
        table=lambda: pd.DataFrame(
            {
                "entry": np.arange(len(user)),
                "logit": x[row],
                "your_p": user,
                "reference_p": v.reference,
                "abs_error": np.abs(user - v.reference),
                "differs": differing,
            }
        ),
    )
    if v.likely_cause:
        st.caption(state.plain(t("check.row_cause", cause=v.likely_cause)))


# ---------------------------------------------------------------- verdicts
verdicts = None
if x is not None and p is not None:
    try:
        verdicts = check_compute.check_run(x, p, mapping, compute.items(params), float(atol), float(rtol))
    except ValueError as err:
        st.error(state.plain(t("check.cannot_check", error=err)), icon="⚠️")

if verdicts:
    info = summary(verdicts)
    causes = "; ".join(f"{count} × {t(CAUSE_LABELS[key])}" for key, count in info["causes"].items())
    text = t("check.summary", passed=info["passed"], rows=info["rows"], error=info["max_abs_error"])
    if info["failed"]:
        st.warning(state.plain(text + " " + t("check.summary_causes", causes=causes)), icon=":material/cancel:")
    else:
        st.success(state.plain(text), icon=":material/check_circle:")

    def shown_indices(v) -> str:
        head = ", ".join(map(str, v.differing[:DIFFERING_SHOWN]))
        more = len(v.differing) - DIFFERING_SHOWN
        return head + (t("check.more", count=more) if more > 0 else "")

    table = pa.table(  # an Arrow table goes out as it is (a DataFrame is converted on every run)
        {
            t("check.col_row"): [v.row for v in verdicts],
            t("check.col_verdict"): [t("check.ok") if v.ok else t("check.mismatch") for v in verdicts],
            t("check.col_max_err"): [v.max_abs_error for v in verdicts],
            t("check.col_differing"): [shown_indices(v) for v in verdicts],
            t("check.col_cause"): [t(CAUSE_LABELS[v.cause or ("none" if v.ok else "unexplained")]) for v in verdicts],
            t("check.col_detail"): [localize(v.likely_cause or "") for v in verdicts],
        }
    )
    st.dataframe(
        table, hide_index=True, column_config={t("check.col_max_err"): st.column_config.NumberColumn(format="%.3g")}
    )

    row_view(verdicts, x, p, mapping)

    # downloads of the reference
    reference = np.stack([v_.reference for v_ in verdicts])
    st.markdown(t("check.download", rows=reference.shape[0], n=reference.shape[1]))
    d1, d2, _ = st.columns([1, 1, 4])
    if reference.size <= check_compute.CHECK_EAGER_VALUES:
        csv_data, npy_data = check_compute.check_reference_files(reference)
    else:  # prepared on click only
        csv_data = lambda: check_compute.check_reference_files(reference)[0]  # noqa: E731
        npy_data = lambda: check_compute.check_reference_files(reference)[1]  # noqa: E731
    d1.download_button(
        t("check.download_csv"),
        csv_data,
        file_name=f"reference_{mapping}.csv",
        mime="text/csv",
        key="check_download_csv",
        on_click="ignore",
        icon=":material/download:",
    )
    d2.download_button(
        t("check.download_npy"),
        npy_data,
        file_name=f"reference_{mapping}.npy",
        mime="application/octet-stream",
        key="check_download_npy",
        on_click="ignore",
        icon=":material/download:",
    )

if example != "none":
    with st.expander(t("check.example_code")):
        st.code(check_compute.example_source(example), language="python")
