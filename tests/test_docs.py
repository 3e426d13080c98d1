"""The README and docs/ hold together: the README stays short (it is also the package's page on
the package index), its API tour runs, every relative link and image resolves (files and #anchors),
and the README's map of the code names the folders and files that exist."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces -> '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+\s+(.+)$", text, flags=re.M)}


def test_readme_is_at_most_200_lines():
    assert len(README.read_text().splitlines()) <= 200


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_and_images_resolve(page):
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not checked offline
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        if not resolved.exists():
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(target)
    assert not broken, broken


def test_the_readme_api_tour_runs():
    """The first Python block of the README, as written (the mappings, losses, reference, fused)."""
    block = re.search(r"## API tour\n```python\n(.*?)```", README.read_text(), flags=re.S).group(1)
    namespace: dict = {}
    exec(compile(block, "README.md (API tour)", "exec"), namespace)  # our own text, not user input
    assert namespace["pc"].sparsemax(namespace["x"]).sum().item() == pytest.approx(1.0)


def test_the_readme_map_matches_the_tree():
    """Every top-level folder of the repository (not the ones .gitignore lists) is in the map, and every folder and file the map
    names exists (a `name.py` in a folder's row lives in that folder)."""
    section = README.read_text().split("## Map of the code", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (.+) \|$", section, flags=re.M)
    named = {folder for folder, _ in rows}
    ignored = {line.strip("/") + "/" for line in (ROOT / ".gitignore").read_text().splitlines() if line.startswith("/")}
    folders = {p.name + "/" for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    folders -= ignored | {p.name + "/" for p in ROOT.glob("*.egg-info")}
    assert folders <= named, sorted(folders - named)
    missing = []
    for folder, text in rows:
        if not (ROOT / folder).exists():
            missing.append(folder)
            continue
        for name in re.findall(r"`([\w/]+\.(?:py|c|cfg|sh|md))`", text):
            if not (ROOT / folder / name).exists() and not (ROOT / name).exists():
                missing.append(folder + name)
    assert not missing, missing
