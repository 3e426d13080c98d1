"""The import layering of the explorer (docs/architecture.md) and the owners of session keys, read
from the source (AST): shared layers never import the pages, every import points down, nothing
imports a page script, no page imports another page, and each private session key is written
and read by one module only (its owner)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Bottom to top; a module may import its own package or a lower layer, never a higher one.
LAYERS = [
    ("explorer.i18n",),
    ("explorer.compute", "explorer.training"),
    ("explorer.session",),
    ("explorer.serving",),
    ("explorer.drawing",),
    ("explorer.live",),  # the live views (components v2): drawing in the browser
    ("views.<page>",),  # a page's own modules: compute, figures, strings, session
    ("views.registry",),
    ("explorer.classroom",),  # plays the pages: the registry and the pages' computations
    ("views.<page>.page", "app"),  # the Streamlit scripts: imported by nobody
]
SHARED = (
    "explorer.i18n",
    "explorer.compute",
    "explorer.training",
    "explorer.session",
    "explorer.serving",
    "explorer.drawing",
    "explorer.live",
)


def modules() -> dict[str, Path]:
    paths = [*ROOT.glob("explorer/**/*.py"), *ROOT.glob("views/**/*.py"), ROOT / "app.py"]
    found = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p for p in paths}
    return {name: path for name, path in found.items() if name not in ("explorer", "views")}  # docstrings only


def layer_of(module: str) -> tuple[int, str]:
    """(layer index, group) of a module; group is the page for a page's modules."""
    match = re.fullmatch(r"views\.(\w+)(\.\w+)?", module)
    if match and match.group(1) != "registry":
        page = match.group(1)
        return (len(LAYERS) - 1 if match.group(2) == ".page" else 5), page
    for index, group in enumerate(LAYERS):
        for prefix in group:
            if module == prefix or module.startswith(prefix + "."):
                return index, prefix
    raise AssertionError(f"{module} is in no layer of tests/test_layering.py")


def imports(path: Path) -> set[str]:
    """Every explorer / views / app module ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    known = modules()
    return {name for name in found if name in known}


def test_every_import_points_down():
    wrong = []
    for module, path in modules().items():
        mine, my_group = layer_of(module)
        for target in imports(path):
            theirs, their_group = layer_of(target)
            if module.startswith(target + "."):  # a module's own package
                continue
            if theirs > mine or (theirs == mine and my_group != their_group):
                wrong.append(f"{module} -> {target}")
    assert not wrong, wrong


def test_shared_layers_never_import_a_page_and_nothing_imports_a_script():
    for module, path in modules().items():
        for target in imports(path):
            if module.startswith(SHARED):
                assert not target.startswith("views"), (module, target)
            assert not target.endswith(".page") and target != "app", (module, target)


def test_no_page_imports_another_page():
    for module, path in modules().items():
        if not module.startswith("views.") or module == "views.registry":
            continue
        page = module.split(".")[1]
        others = {t.split(".")[1] for t in imports(path) if t.startswith("views.") and t != "views.registry"}
        assert others <= {page}, (module, others)


def _written_keys(path: Path) -> set[str]:
    """Private session keys ("_...") the module writes: assigned, deleted, popped, set by default
    or declared as a SessionKey."""
    keys = set()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            for sub in ast.walk(target):
                if (
                    isinstance(sub, ast.Subscript)
                    and isinstance(sub.slice, ast.Constant)
                    and isinstance(sub.slice.value, str)
                    and sub.slice.value.startswith("_")
                ):
                    keys.add(sub.slice.value)
        if (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("_")
        ):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("pop", "setdefault") or (
                isinstance(node.func, ast.Subscript) and getattr(node.func.value, "id", "") == "SessionKey"
            ):
                keys.add(node.args[0].value)
    return keys


def test_each_private_session_key_has_one_writer():
    writers: dict[str, set[str]] = {}
    for module, path in modules().items():
        for key in _written_keys(path):
            writers.setdefault(key, set()).add(module)
    assert {"_check_filled", "_notes", "_last_kwargs", "_draft"} <= set(writers)  # the scan sees them
    shared = {key: sorted(mods) for key, mods in writers.items() if len(mods) > 1}
    assert not shared, shared


def test_a_private_session_key_is_read_only_through_its_owner():
    """Another module asks the owner (views/check/session.py, state.opened_url, lesson_bar.draft ...)
    instead of naming the key."""
    owner = {}
    for module, path in modules().items():
        for key in _written_keys(path):
            owner[key] = module
    foreign = []
    for module, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in owner and owner[node.value] != module:
                foreign.append(f"{module} names {node.value} of {owner[node.value]}")
    assert not foreign, foreign
