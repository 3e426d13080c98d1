"""The wheel test (issue 22): build probcore's wheel from the checkout, install it into a fresh
virtual environment (torch and numpy from the system through --system-site-packages, probcore from
the wheel only), and from the installed package run the fused path (the compiled kernel loaded,
no warning), the `probcore check` command and the conformance kit (probcore.testing)."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "probcore"]

INSTALLED = r"""
import json, sys, warnings
warnings.simplefilter("error")  # no "fused path unavailable" warning, nor any other
import numpy as np, torch, probcore, probcore.testing
from probcore import fused
x = torch.randn(32, 300, dtype=torch.float64, requires_grad=True)
p = probcore.entmax(x, alpha=1.3, fused=True)
p.sum().backward()
assert fused._library, "the compiled kernel is not loaded"
eager = probcore.entmax(x.detach(), alpha=1.3, fused=False)
assert (p.detach() - eager).abs().max() <= 1e-12
ran = probcore.testing.check_implementation(lambda v, dim=-1: probcore.sparsemax(v, dim=dim), "sparsemax")
logits = np.random.default_rng(0).normal(size=(5, 8))
np.save("logits.npy", logits)
np.save("probs.npy", probcore.sparsemax(torch.from_numpy(logits)).numpy())
np.save("wrong.npy", torch.softmax(torch.from_numpy(logits), -1).numpy())
print(json.dumps({"file": probcore.__file__, "kernel": str(fused.kernel_path()), "cases": list(ran)}))
"""


@pytest.mark.slow
def test_the_wheel_installs_and_runs_the_fused_path_check_and_kit(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:  # the checkout's sources, without in-place build outputs
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        else:
            shutil.copy2(ROOT / name, source / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("probcore-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("probcore/_fused_kernel") and n.endswith(".so") for n in names), names
    assert "-none-any" not in wheel.name  # a platform wheel: it carries the compiled kernel

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]

    work = tmp_path / "work"  # not the checkout: nothing there to import by accident
    work.mkdir()
    done = subprocess.run([str(python), "-c", INSTALLED], cwd=work, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    site = str(venv / "lib")
    assert facts["file"].startswith(site), facts  # the venv's probcore, not the editable checkout
    assert facts["kernel"].startswith(site), facts
    assert "values" in facts["cases"] and "gradients" in facts["cases"]

    command = venv / "bin" / "probcore"
    ok = subprocess.run(
        [str(command), "check", "logits.npy", "probs.npy", "-m", "sparsemax", "--json"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["ok"] is True
    bad = subprocess.run(
        [str(command), "check", "logits.npy", "wrong.npy", "-m", "sparsemax"],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 1 and "MISMATCH" in bad.stdout, bad.stdout + bad.stderr
