"""Chinese is complete: every interface string has a Chinese one that differs from the English
(names and formulas excepted, listed here), with the same fields, full-width punctuation and the
agreed terms; every registry parameter has Chinese help; every message probcore can send to the
interface (validation, reading numbers, the Check page's diagnoses) has a Chinese template that its
real English text matches."""

from __future__ import annotations

import io
import re
import string

import numpy as np
import pytest
import streamlit as st
import torch

from explorer import i18n
from explorer.classroom import lessons  # noqa: F401 (registers the classroom's words)
from explorer.i18n import EN, MESSAGE_PATTERNS, ZH, localize, message_id
from probcore.check import SENTENCES, Sentence
from probcore.errors import MESSAGES, ProbcoreError
from probcore import check
from probcore.registry import MAPPINGS
from views import registry  # noqa: F401 (registers every page's words)
from views.check import compute as check_compute

# Names and formulas that read the same in Chinese.
SAME_IN_BOTH = {
    "lang.en",
    "lang.zh",
    "fig.plane_u",
    "fig.plane_v",
    "fig.plane_x02",
    "fig.plane_x12",
    "col.sum",
    "col.half_l1",
    "col.one_minus_sq",
    "loss.p_axis",
    "sweeps.alpha",
    "sweeps.alpha_axis",
    "sb.logits",
    "sb.logits_text",
    "loss.prediction_axis",
    "perturb.noise_gumbel",
    "margin.col_logit",
    "margin.fig_gap_m",
    "margin.fig_logit_axis",
    "overconfidence.gap_axis2",
    "vocab.hs_sum",
    "vocab.hs_sum_err",
    "vocab.nce_pq",
    "vocab.fig_hs_p",
    "vocab.fig_log2_n",
    "vocab.fig_entropy_1",
    "vocab.fig_log_z",
    "vocab.fig_var",
    "vocab.fig_grad_tv",
    "vocab.fig_grad_rel",
    "attention.output_value",
    "check.col_max_err",
    "check.cause_none",
    "check.download_csv",
    "check.download_npy",
    "losses.gradient_axis",
    "losses.neg_p",
    "losses.ce_grad",
    "losses.neg_p_grad",
    "losses.log_eps",
    "losses.grad_axis",
    "losses.alpha",
    "losses.alpha_curve",
    "smooth.log_T",
    "smooth.lse_curve",
    "smooth.max_line",
    "smooth.upper",
    "smooth.softmax",
    "smooth.col_shift",
    "smooth.beta",
    "smooth.log2_d",
    "smooth.raw",
    "smooth.scaled",
    "sfe.logits",
    "sfe.p_relu",
    "vocab.train_minus_log_z",
}
CJK = "\u4e00-\u9fff"
# One term per concept: the left-hand words must not appear in Chinese (the right-hand one is used).
TERMS = {
    "扰动最大": "Perturb-max",
    "全变差": "总变差",
    "归一化因子": "配分函数",
    "支撑大小": "支撑集大小",
    "词频质量": "词频占比",
    "铰链": "合页损失",
    "hinge": "合页损失",
}


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_has_a_chinese_string():
    missing = [k for k in EN if not ZH.get(k)]
    assert not missing
    same = sorted(k for k in EN if ZH[k] == EN[k] and k not in SAME_IN_BOTH)
    assert not same, same
    assert not [k for k in SAME_IN_BOTH if ZH[k] != EN[k]]  # the allow-list stays exact


def test_chinese_strings_keep_the_fields():
    assert not {k: (fields(EN[k]), fields(ZH[k])) for k in EN if fields(EN[k]) != fields(ZH[k])}


def test_full_width_punctuation():
    bad = {}
    for key, text in ZH.items():
        plain = re.sub(r"\{[^}]*\}", "", text)
        hits = re.findall(rf"[{CJK}”][,;:!?]|[,;:!?]\s*[{CJK}“]|[{CJK}]\(", plain)
        hits += [
            m
            for m in re.findall(r"\(([^()]*)\)", plain)
            if re.match(rf"[{CJK}]", m) and len(re.findall(f"[{CJK}]", m)) >= 3
        ]
        if hits:
            bad[key] = hits
    assert not bad, bad


def test_one_term_per_concept():
    for avoid, use in TERMS.items():
        assert not [k for k, v in ZH.items() if avoid in v], (avoid, use)
    assert "配分函数" in ZH["vocab.intro"] and "合页损失" in ZH["loss.hinge"] and "logistic 损失" in ZH["loss.logistic"]


def test_every_registry_parameter_has_chinese_help():
    for name in {p.name for m in MAPPINGS.values() for p in m.params}:
        assert ZH.get(f"help.{name}") and re.search(f"[{CJK}]", ZH[f"help.{name}"]), name
        label = next(p.label for m in MAPPINGS.values() for p in m.params if p.name == name)
        assert ZH.get(f"param.{name}") or not re.search("[A-Za-z]{3}", label), name  # a symbol needs none


def _messages() -> list[str]:
    """Real messages of probcore and the explorer: bad parameters, bad numbers, bad files, bad
    shapes, and the diagnoses of the Check page's examples and of typical mistakes."""
    out = []

    def catch(fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except ValueError as err:
            out.append(err)
        else:
            raise AssertionError(f"{fn} accepted {args} {kwargs}")

    bad = [
        ("softmax", {"temperature": 0}),
        ("softmax", {"temperature": "x"}),
        ("softmax", {"beta": float("inf")}),
        ("softmax", {"beta": 2.0, "temperature": 0.5}),
        ("taylor_softmax", {"order": 3}),
        ("sparse_softmax", {"k": 9}),
        ("sparse_softmax", {"top_p": 1.5}),
        ("sparse_softmax", {"k": None, "top_p": None}),
        ("entmax", {"alpha": -0.5}),
        ("perturbmax", {"noise": "cauchy"}),
        ("am_softmax", {"margin": -1}),
        ("am_softmax", {"scale": 0}),
        ("gumbel_softmax", {"hard": 1}),
        ("gumbel_softmax", {"temperature": -1}),
        ("softmax", {"order": 2}),
    ]
    for name, params in bad:
        catch(MAPPINGS[name].validate, n=3, **params)
    catch(check.parse_vector, "1, abc", name="logits")
    catch(check.parse_vector, "1, nan", name="logits")
    catch(check.parse_vector, "1, 1e999", name="logits")
    catch(check.parse_vector, "", name="logits")
    catch(check.load_rows, b"1,2\n3\n", "x.csv")
    catch(check.load_rows, b"1,2\n3,x\n", "x.csv")
    catch(check.load_rows, b"\xff\xfe", "x.csv")
    catch(check.load_rows, b"1", "x.txt")
    catch(check.load_rows, b"not npy", "x.npy")
    buffer = io.BytesIO()
    np.save(buffer, np.array([[1.0, np.nan]]))
    catch(check.load_rows, buffer.getvalue(), "x.npy")
    catch(check_compute.check_parse_rows, "1, 2\n3", "logits")  # the Check page's pasted rows
    catch(check_compute.check_parse_rows, "[[1, 2], [3]]", "probabilities")
    catch(check_compute.check_parse_rows, " \n", "logits")
    x = np.array([[1.0, 2.0, 0.5]])
    catch(check.check_outputs, x, np.ones((1, 2)), "softmax")
    catch(check.check_outputs, np.array([[1.0, np.nan, 0]]), np.ones((1, 3)) / 3, "softmax")
    catch(check.check_outputs, x, np.ones((1, 3)) / 3, "gumbel_softmax")
    catch(check.check_outputs, x, np.ones((1, 3)) / 3, "am_softmax")
    catch(check.check_outputs, x, np.ones((1, 3)) / 3, "softmax", target=0)
    for example in check_compute.CHECK_EXAMPLES:
        mapping, params, xs, user = check_compute.check_example(example)
        out += [v.likely_cause for v in check.check_outputs(xs, user, mapping, **params) if v.likely_cause]
    rows = np.random.default_rng(0).normal(size=(3, 6))
    p = torch.softmax(torch.tensor(rows), -1).numpy()
    out += [v.likely_cause for v in check.check_outputs(rows, p * 1.5, "softmax")]  # renormalisation
    out += [v.likely_cause for v in check.check_outputs(rows, rows, "softmax")]  # passthrough
    out += [v.likely_cause for v in check.check_outputs(rows, p.astype(np.float16).astype(float), "softmax")]
    out += [v.likely_cause for v in check.check_outputs(rows, torch.softmax(torch.tensor(rows), 0).numpy(), "softmax")]
    out += [v.likely_cause for v in check.check_outputs(rows, np.full_like(p, np.nan), "softmax")]
    return [m for m in out if m]


@pytest.fixture
def chinese():
    st.session_state["lang"] = "zh"
    yield
    st.session_state["lang"] = "en"


def test_every_probcore_message_reads_in_chinese(chinese):
    """probcore's errors and the checker's diagnoses by their code (never by their English text):
    each reads in Chinese with every field filled."""
    messages = _messages()
    assert len(messages) >= 30
    seen = set()
    for message in messages:
        if isinstance(message, (ProbcoreError, Sentence)):
            key = message.code
        else:  # the explorer's own reading of pasted rows
            assert message.__class__ is ValueError, f"a probcore message without a code: {message!r}"
            key = message_id(str(message))
        assert key is not None, f"no pattern for: {message}"
        seen.add(key)
        text = localize(message)
        assert text != str(message) and re.search(f"[{CJK}]", text), (message, text)
        assert "{" not in text.replace("{{", "") or "max{" in text, text
    assert len(seen) >= 25, sorted(seen)


def test_templates_name_only_their_messages_fields():
    """A Chinese template uses only the fields its code's English template (probcore.errors.MESSAGES)
    or its diagnosis pattern has; every code has one."""
    for code, english in {**MESSAGES, **SENTENCES}.items():
        template = ZH.get(f"error.{code}")
        assert template, code
        assert fields(template) <= fields(english), code
    for key, pattern in MESSAGE_PATTERNS.items():
        template = ZH.get(f"error.{key}")
        assert template, key
        assert fields(template) <= set(re.compile(pattern).groupindex), key
    assert not set(MESSAGE_PATTERNS) & (set(MESSAGES) | set(SENTENCES))  # no English parsed for a coded message


def test_interface_fields_named_error_are_translated(chinese):
    try:
        MAPPINGS["entmax"].validate(alpha=-0.2)
    except ValueError as err:
        shown = i18n.t("msg.param", error=err, mappings="α-entmax")
    assert "α 必须是 > 0 的有限实数" in shown
    assert localize("something probcore never says") == "something probcore never says"


@pytest.mark.slow
def test_parameter_help_and_a_typed_bad_value_read_in_chinese():
    """The parameters of α-entmax (picked under Mappings) in a Chinese session opened with a bad α."""
    from streamlit.testing.v1 import AppTest
    from helpers import APP, TIMEOUT

    at = AppTest.from_file(
        APP, default_timeout=TIMEOUT
    )  # one run: a second in Chinese trips AppTest's selectbox formatting
    at.query_params.update({"lang": "zh", "alpha": "-0.5"})
    at.session_state["params_of"] = "entmax"
    at.run()
    assert at.number_input(key="w_alpha").help.startswith(ZH["help.alpha"])
    assert "用于：" in at.number_input(key="w_temperature").help
    text = " ".join(e.value for e in at.error).replace("\\", "")
    assert "α 必须是 > 0 的有限实数，收到 -0.5" in text, text


def test_every_key_the_code_names_exists():
    """Every literal t("key") of the explorer and its pages is a registered key (words next to their
    page, found by grep)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sources = [*root.glob("explorer/**/*.py"), *root.glob("views/**/*.py"), root / "app.py"]
    named = {
        key for path in sources for key in re.findall(r"""\bt\(["']([a-z_0-9]+\.[a-z_0-9.]+)["']""", path.read_text())
    }
    assert len(named) > 500
    assert not sorted(named - set(EN)), sorted(named - set(EN))


@pytest.mark.slow
def test_the_language_read_once_a_run_follows_the_url_read_in_that_run():
    """language() keeps the session's language for the rest of a script run once read; the first
    run reads the URL after a bad parameter's note was already written (in English, the language
    then), and every string after the URL read is in the URL's language: the title, the sidebar."""
    from streamlit.testing.v1 import AppTest
    from helpers import APP, TIMEOUT

    at = AppTest.from_file(
        APP, default_timeout=TIMEOUT
    )  # one run: a second in Chinese trips AppTest's selectbox formatting
    at.query_params.update({"present": "maybe", "lang": "zh"})
    at.run()
    assert not at.exception
    assert at.title[0].value == ZH["page.compare"]
    assert at.toggle(key="present").label == ZH["sb.present"]
    assert any("present" in e.value for e in at.error)
