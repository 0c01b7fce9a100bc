"""The front door (issue 35): a README a newcomer reads in two minutes, with the two
commands on its first screen, and every link of the README and docs/ leading to a
file and heading that exist. Each check names every offender, so the fix is a list."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 150
FIRST_SCREEN = 40
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of ``path``'s headings: lower case, punctuation dropped
    (but ``-`` and ``_``), spaces to ``-``; a repeated heading gets ``-1``, ``-2``."""
    found, seen = set(), {}
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(path: Path) -> list[str]:
    """``file: target`` for each relative link of ``path`` whose file or heading
    does not exist (links to other sites are not followed)."""
    broken = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        linked = (path.parent / name).resolve() if name else path
        missing_heading = (
            linked.exists()
            and anchor
            and linked.suffix == ".md"
            and anchor not in anchors(linked)
        )
        if not linked.exists() or missing_heading:
            broken.append(f"{path.relative_to(ROOT)}: {target}")
    return broken


def test_the_readme_is_read_in_two_minutes():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < MAX_README_LINES, f"README.md: {len(lines)} lines"


def test_the_two_commands_are_on_the_first_screen():
    first = "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN])
    assert re.search(r"^make run\b", first, re.M), "make run"
    assert re.search(r"^make test\b", first, re.M), "make test"


def test_the_readme_shows_a_screenshot_that_exists():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README.read_text(encoding="utf-8"))
    assert images and all((ROOT / image).is_file() for image in images)


def test_the_readme_links_every_guide():
    text = README.read_text(encoding="utf-8")
    missing = [
        f"docs/{path.name}"
        for path in sorted((ROOT / "docs").glob("*.md"))
        if f"(docs/{path.name})" not in text
    ]
    assert not missing, missing


def test_every_relative_link_leads_somewhere():
    broken = [item for path in markdown_files() for item in broken_links(path)]
    assert not broken, "\n".join(broken)
