"""pyproject.toml agrees with requirements*.txt, and the library never imports the app's packages."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import probcore

ROOT = Path(__file__).resolve().parents[1]


def read_requirements(path: Path) -> dict[str, Requirement]:
    """name -> Requirement of a requirements file, following ``-r other.txt``."""
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r"):
            out.update(read_requirements(path.parent / line[2:].strip()))
            continue
        req = Requirement(line)
        out[canonicalize_name(req.name)] = req
    return out


def project_requirements(*extras: str) -> dict[str, Requirement]:
    """name -> Requirement of pyproject's dependencies plus the given extras (self-references
    such as probcore[app] expanded)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    out, todo, seen = {}, list(project["dependencies"]), set()
    for extra in extras:
        todo += project["optional-dependencies"][extra]
    while todo:
        req = Requirement(todo.pop())
        if canonicalize_name(req.name) == project["name"]:
            for extra in set(req.extras) - seen:
                seen.add(extra)
                todo += project["optional-dependencies"][extra]
            continue
        out[canonicalize_name(req.name)] = req
    return out


@pytest.mark.parametrize(
    "filename, extras", [("requirements.txt", ("app",)), ("requirements-test.txt", ("app", "test"))]
)
def test_requirements_agree_with_pyproject(filename, extras):
    """The same package names, and every pinned version admitted by pyproject's specifier (a
    requirements line without a pin must carry pyproject's specifier unchanged)."""
    pinned = read_requirements(ROOT / filename)
    declared = project_requirements(*extras)
    assert set(pinned) == set(declared), f"{filename} and pyproject ({'+'.join(extras)}) list different packages"
    for name, req in pinned.items():
        spec = declared[name].specifier
        exact = [s.version for s in req.specifier if s.operator == "=="]
        if exact:
            assert spec.contains(exact[0], prereleases=True), f"{filename} pins {req}, outside pyproject's {name}{spec}"
        else:
            assert req.specifier == spec, f"{filename} has {req}, pyproject {name}{spec}"


def test_requirements_pin_torch_exactly():
    """The app's one-line install pins the CPU wheel on this disk (a range would fetch a CUDA build)."""
    assert str(read_requirements(ROOT / "requirements.txt")["torch"].specifier) == "==2.13.0"


def test_bench_extra_has_what_bench_imports():
    assert {"entmax", "playwright", "streamlit", "plotly"} <= set(project_requirements("bench"))


def test_version_is_a_string_read_by_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "probcore.__version__"}
    assert isinstance(probcore.__version__, str) and probcore.__version__.count(".") == 2
    assert (ROOT / "probcore" / "py.typed").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "code",
    [
        "import probcore, probcore.check, probcore.testing, probcore.cli",
        "from probcore.cli import main; main(['--version'])",
    ],
)
def test_library_never_imports_the_app_packages(code):
    """probcore (core, check, kit, CLI) runs without Streamlit or Plotly installed."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.slow
def test_import_does_not_load_the_compiler():
    """import probcore leaves torch._dynamo unloaded (importing it costs 1-3 s here): torch.compile
    users load it themselves."""
    probe = "import probcore, probcore.registry\nimport sys\nprint('torch._dynamo' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"
