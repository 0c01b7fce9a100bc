"""The repository's shape: no Python module over 500 lines, no template line over
200 characters (ENGINEERING.md: small modules; templates readable in a review
diff). Each check names every offender as ``path:line`` so the fix is a list."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON_DIRS = ("proposals", "aifactory", "scripts", "tests")
MAX_LINES = 500
MAX_TEMPLATE_LINE = 200


def long_python_files(root: Path) -> list[str]:
    """``path: N lines`` for each Python file under the project's own folders
    (not .venv or node_modules, which sit beside them) longer than MAX_LINES."""
    found = []
    for folder in PYTHON_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                found.append(f"{path.relative_to(root)}: {lines} lines")
    return found


def long_template_lines(root: Path) -> list[str]:
    """``path:line: N characters`` for each template line over MAX_TEMPLATE_LINE."""
    found = []
    for path in sorted((root / "templates").rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if len(line) > MAX_TEMPLATE_LINE:
                found.append(
                    f"{path.relative_to(root)}:{number}: {len(line)} characters"
                )
    return found


def test_no_python_file_is_over_500_lines():
    found = long_python_files(ROOT)
    assert not found, "Python files over 500 lines:\n" + "\n".join(found)


def test_no_template_line_is_over_200_characters():
    found = long_template_lines(ROOT)
    assert not found, (
        f"{len(found)} template lines over 200 characters (wrap between tags or "
        "attributes):\n" + "\n".join(found)
    )


def test_the_checks_name_each_offender(tmp_path):
    (tmp_path / "proposals").mkdir()
    (tmp_path / "proposals" / "small.py").write_text("x = 1\n" * MAX_LINES)
    (tmp_path / "proposals" / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "templates" / "app").mkdir(parents=True)
    page = "<p>short</p>\n" + "x" * (MAX_TEMPLATE_LINE + 1) + "\n" + "y" * 200
    (tmp_path / "templates" / "app" / "page.html").write_text(page)
    assert long_python_files(tmp_path) == [f"proposals/big.py: {MAX_LINES + 1} lines"]
    assert long_template_lines(tmp_path) == [
        "templates/app/page.html:2: 201 characters"
    ]
