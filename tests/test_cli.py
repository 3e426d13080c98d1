"""The probcore command: exit status 0 / 1 / 2, the diagnosed cause per row, --json, stdin, hostile input.

The "user implementations" are written here from the formulas, independently of probcore."""

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from probcore.check import MAX_FILE_BYTES, load_rows, rows_bytes
from probcore.cli import main

ROOT = Path(__file__).resolve().parents[1]


def softmax_np(x, t=1.0):
    z = x / t
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def softmax_no_max_np(x):
    with np.errstate(all="ignore"):
        e = np.exp(x.astype(np.float32))
        return (e / e.sum(-1, keepdims=True)).astype(np.float64)


@pytest.fixture
def logits():
    """Four rows of 8 logits; the last one around 750 (unscaled dot products: exp overflows)."""
    x = np.random.default_rng(3).normal(scale=1.5, size=(4, 8))
    x[3] += 750
    return x


def write(path: Path, rows: np.ndarray) -> str:
    path.write_bytes(rows_bytes(rows, path.suffix[1:]))
    return str(path)


def run(*argv, stdin: bytes = b""):
    """main() in-process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_correct_outputs_exit_0(tmp_path, logits):
    x = write(tmp_path / "x.csv", logits)
    p = write(tmp_path / "p.npy", softmax_np(logits, 2.0))
    code, out, err = run("check", x, p, "--mapping", "softmax", "--param", "temperature=2")
    assert code == 0, err
    assert out.count(": ok (") == 4 and "4 of 4 rows match" in out


def test_no_max_subtraction_exit_1_with_cause(tmp_path, logits):
    x = write(tmp_path / "x.npy", logits)
    p = write(tmp_path / "p.csv", softmax_no_max_np(logits))  # nan written as "nan": probs may hold it
    code, out, _ = run("check", x, p, "-m", "softmax")
    assert code == 1
    lines = out.splitlines()
    assert all(": ok (" in line for line in lines[:3])
    assert "row 3: MISMATCH" in lines[3] and "without subtracting max x" in lines[3]
    assert "1 overflow: no max-subtraction before exp" in lines[-1]


def test_forgotten_temperature_json(tmp_path, logits):
    x = write(tmp_path / "x.csv", logits[:3])
    p = write(tmp_path / "p.csv", softmax_np(logits[:3]))  # T = 1 where T = 0.5 was asked
    code, out, _ = run("check", x, p, "-m", "softmax", "-p", "temperature=0.5", "--json")
    assert code == 1
    report = json.loads(out)
    assert set(report) == {
        "mapping",
        "params",
        "atol",
        "rtol",
        "ok",
        "rows",
        "passed",
        "failed",
        "max_abs_error",
        "causes",
        "summary",
        "verdicts",
    }
    assert report["mapping"] == "softmax" and report["params"] == {"temperature": 0.5}
    assert (report["ok"], report["rows"], report["passed"], report["failed"]) == (False, 3, 0, 3)
    assert report["causes"] == {"temperature_forgotten": 3}
    for row, v in enumerate(report["verdicts"]):
        assert set(v) == {"row", "ok", "max_abs_error", "differing", "cause", "likely_cause", "fitted"}
        assert v["row"] == row and v["ok"] is False and v["cause"] == "temperature_forgotten"
        assert v["differing"] == list(range(8))
        assert v["fitted"]["temperature"] == pytest.approx(1.0, rel=1e-4)
        assert "T = 0.5 was not applied" in v["likely_cause"]


def test_json_nonfinite_errors_are_null(tmp_path, logits):
    x = write(tmp_path / "x.npy", logits)
    p = write(tmp_path / "p.npy", softmax_no_max_np(logits))
    code, out, _ = run("check", x, p, "-m", "softmax", "--json")
    report = json.loads(out)  # strict JSON: no NaN / Infinity tokens
    assert code == 1 and "NaN" not in out and "Infinity" not in out
    assert report["max_abs_error"] is None and report["verdicts"][3]["max_abs_error"] is None
    assert report["verdicts"][3]["cause"] == "max_subtraction"
    assert report["verdicts"][0]["ok"] is True and report["verdicts"][0]["cause"] is None


def test_sparsemax_off_by_one_and_stdin(tmp_path):
    x = np.array([[1.2, 0.4, -0.3, 0.9, 0.0], [2.0, 1.7, 1.5, -1.0, 0.2]])
    good = np.array([[0.65, 0.0, 0.0, 0.35, 0.0], [0.6, 0.3, 0.1, 0.0, 0.0]])
    code, out, _ = run("check", "-", write(tmp_path / "p.csv", good), "-m", "sparsemax", stdin=rows_bytes(x, "csv"))
    assert code == 0, out
    wrong = np.maximum(x - ((np.sort(x)[:, ::-1][:, :3].sum(-1) - 1) / 3)[:, None], 0)  # tau from K + 1 = 3 entries
    code, out, _ = run("check", write(tmp_path / "x.csv", x), "-", "-m", "sparsemax", stdin=rows_bytes(wrong, "csv"))
    assert code == 1
    assert "row 0: MISMATCH" in out and "threshold tau computed from the top 3 entries instead of 2" in out


def test_reference_round_trip(tmp_path, logits):
    x = write(tmp_path / "x.csv", logits)
    for out_name in ("ref.npy", "ref.csv"):
        code, _, err = run("reference", x, "-m", "entmax", "-p", "alpha=1.3", "-o", str(tmp_path / out_name))
        assert code == 0, err
        ref = load_rows((tmp_path / out_name).read_bytes(), out_name)
        assert ref.shape == logits.shape and np.allclose(ref.sum(-1), 1)
        code, out, _ = run("check", x, str(tmp_path / out_name), "-m", "entmax", "-p", "alpha=1.3")
        assert code == 0, out
    code, out, _ = run("reference", "-", "-m", "softmax", stdin=rows_bytes(logits, "csv"))
    assert code == 0
    assert np.allclose(load_rows(out.encode(), "stdout.csv"), softmax_np(logits), atol=1e-15, rtol=1e-12)


def test_am_softmax_target_per_row(tmp_path):
    x = np.array([[0.9, 0.1, -0.2], [0.0, 0.5, 0.4]])
    target = np.array([0, 2])
    z = 4.0 * (x - 0.3 * np.eye(3)[target])
    p = write(tmp_path / "p.csv", softmax_np(z))
    code, out, _ = run(
        "check",
        write(tmp_path / "x.csv", x),
        p,
        "-m",
        "am_softmax",
        "-p",
        "margin=0.3",
        "-p",
        "scale=4",
        "-p",
        "target=0,2",
    )
    assert code == 0, out
    code, _, err = run("check", str(tmp_path / "x.csv"), p, "-m", "am_softmax", "-p", "target=7")
    assert code == 2 and "target" in err


@pytest.mark.parametrize(
    "argv, stdin, message",
    [
        (["check", "{x}", "{p}", "-m", "softmx"], b"", "mapping must be one of"),
        (
            ["check", "{x}", "{p}", "-m", "softmax", "-p", "temprature=2"],
            b"",
            "unknown parameter 'temprature' for softmax",
        ),
        (["check", "{x}", "{p}", "-m", "softmax", "-p", "temperature=two"], b"", "temperature must be a number"),
        (
            ["check", "{x}", "{p}", "-m", "softmax", "-p", "temperature=0"],
            b"",
            "temperature must be finite and non-zero",
        ),
        (["check", "{x}", "{p}", "-m", "softmax", "-p", "temperature=nan"], b"", "temperature must be a real number"),
        (["check", "{x}", "{p}", "-m", "softmax", "-p", "temperature"], b"", "name=value"),
        (["check", "{x}", "{p}", "-m", "softmax", "-p", "temperature=1", "-p", "temperature=2"], b"", "given twice"),
        (["check", "{x}", "{p}", "-m", "sparse_softmax", "-p", "k=2.5"], b"", "k must be an integer"),
        (["check", "{x}", "{p}", "-m", "sparse_softmax", "-p", "k=9"], b"", "k must be"),
        (["check", "{x}", "{p}", "-m", "perturbmax", "-p", "noise=cauchy"], b"", "noise must be one of gumbel"),
        (["check", "{x}", "{p}", "-m", "gumbel_softmax"], b"", "deterministic"),
        (["check", "{x}", "{p}", "-m", "softmax", "--atol", "-1"], b"", "atol"),
        (["check", "{x}", "{tmp}/missing.npy", "-m", "softmax"], b"", "cannot read probs"),
        (["check", "{x}", "{tmp}", "-m", "softmax"], b"", "cannot read probs"),
        (["check", "{x}", "{tmp}/p.txt", "-m", "softmax"], b"", "must end in .csv or .npy"),
        (["check", "{x}", "{tmp}/short.csv", "-m", "softmax"], b"", "must have the shape of logits"),
        (["check", "{x}", "{tmp}/empty.csv", "-m", "softmax"], b"", "holds no rows of numbers"),
        (["check", "{x}", "{tmp}/empty.npy", "-m", "softmax"], b"", "not a valid .npy file"),
        (["check", "{x}", "{tmp}/ragged.csv", "-m", "softmax"], b"", "line 2 has 2 values, expected 8"),
        (["check", "{x}", "{tmp}/pickle.npy", "-m", "softmax"], b"", "real numeric array"),
        (["check", "{x}", "{tmp}/huge.csv", "-m", "softmax"], b"", "must be at most 64 MiB"),
        (["check", "{tmp}/nan_logits.csv", "{p}", "-m", "softmax"], b"", "logits must be finite or -inf"),
        (["check", "-", "{p}", "-m", "softmax"], b"1,2\n3,x\n", "line 2, column 2: 'x' is not a number"),
        (["check", "-", "{p}", "-m", "softmax"], b"", "holds no rows of numbers"),
        (["check", "-", "{p}", "-m", "softmax"], b"\xff\xfe", "not UTF-8"),
        (["check", "-", "-", "-m", "softmax"], b"1,2\n", "only one of LOGITS and PROBS"),
        (["reference", "{x}", "-m", "softmax", "-o", "{tmp}/out.txt"], b"", "-o must name a .npy or .csv file"),
        (["reference", "{x}", "-m", "softmax", "-o", "{tmp}/no/such/dir/out.csv"], b"", "cannot write"),
    ],
)
def test_bad_input_exit_2_with_message(tmp_path, logits, argv, stdin, message):
    write(tmp_path / "x.csv", logits)
    write(tmp_path / "p.csv", softmax_np(logits))
    write(tmp_path / "short.csv", softmax_np(logits[:2]))
    write(tmp_path / "nan_logits.csv", np.where(np.eye(4, 8) > 0, np.nan, logits))
    (tmp_path / "p.txt").write_text("0.5,0.5\n")
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "empty.npy").write_bytes(b"")
    (tmp_path / "ragged.csv").write_text("1,2,3,4,5,6,7,8\n1,2\n")
    np.save(tmp_path / "pickle.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with open(tmp_path / "huge.csv", "wb") as f:  # sparse file: no disk used
        f.truncate(MAX_FILE_BYTES + 1)
    argv = [a.format(x=tmp_path / "x.csv", p=tmp_path / "p.csv", tmp=tmp_path) for a in argv]
    code, out, err = run(*argv, stdin=stdin)
    assert code == 2 and out == ""
    assert err.startswith(f"probcore {argv[0]}: error: ") and message in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_argparse_usage_errors_exit_2(capsys):
    assert main(["check", "x.csv"]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["check", "x.csv", "p.csv", "-m", "softmax", "--atol", "tiny"]) == 2
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "usage: probcore" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("command", [["probcore"], [sys.executable, "-m", "probcore"]])
def test_subprocess_exit_codes(tmp_path, logits, command):
    """The installed script (when on PATH) and python -m probcore, as CI runs them."""
    if command == ["probcore"]:
        import shutil

        if shutil.which("probcore") is None:
            pytest.skip("the probcore script is not installed (pip install . puts it on PATH)")
    x = write(tmp_path / "x.csv", logits)
    good = write(tmp_path / "good.npy", softmax_np(logits))
    bad = write(tmp_path / "bad.npy", softmax_no_max_np(logits))
    results = [
        subprocess.run(
            [*command, "check", x, p, "-m", "softmax"], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        for p in (good, bad, str(tmp_path / "none.npy"))
    ]
    assert [r.returncode for r in results] == [0, 1, 2]
    assert "4 of 4 rows match" in results[0].stdout
    assert "no max-subtraction" in results[1].stdout
    assert "cannot read probs" in results[2].stderr and "Traceback" not in results[2].stderr
    piped = subprocess.run(
        [*command, "check", "-", good, "-m", "softmax", "--json"],
        input=rows_bytes(logits, "csv"),
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    assert piped.returncode == 0 and json.loads(piped.stdout)["passed"] == 4


def test_dtype_names_the_overflow_limit_of_that_type(tmp_path):
    x = np.array([[100.0, 99.0, 0.0], [95.0, 3.0, 1.0]])
    with np.errstate(all="ignore"):
        e = np.exp(x.astype(np.float32))
        p = (e / e.sum(-1, keepdims=True)).astype(np.float64)
    xf, pf = write(tmp_path / "x.npy", x), write(tmp_path / "p.npy", p)
    code, out, _ = run("check", xf, pf, "-m", "softmax", "--dtype", "float32", "--json")
    assert code == 1
    verdicts = json.loads(out)["verdicts"]
    assert {v["cause"] for v in verdicts} == {"max_subtraction"}
    assert all("in float32" in v["likely_cause"] and "88.7" in v["likely_cause"] for v in verdicts)
    code, _, _ = run("check", xf, pf, "-m", "softmax", "--dtype", "float8")
    assert code == 2  # argparse refuses the choice (its message goes to the process stderr)
