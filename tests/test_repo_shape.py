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
    paths = [
        *(root / "templates").rglob("*.html"),
        *(root / "proposals" / "jinja2").rglob("*.html"),
    ]
    for path in sorted(paths):
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


CODE_DIRS = ("proposals", "aifactory")
MAX_FUNCTION_LINES = 80
MAX_LONG_FUNCTIONS = 2


def _code_trees(root: Path):
    """(relative path, parsed module) for each Python file of the app's code
    (tests and scripts are exempt from the function and import rules)."""
    import ast

    for folder in CODE_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            yield path.relative_to(root), ast.parse(text, filename=str(path))


def long_functions(root: Path) -> list[str]:
    """``path:line name: N lines`` for each function or method longer than
    MAX_FUNCTION_LINES, counted from ``def`` to its last line (decorators
    excluded), longest first."""
    import ast

    found = []
    for relative, tree in _code_trees(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append((lines, f"{relative}:{node.lineno} {node.name}"))
    return [f"{where}: {lines} lines" for lines, where in sorted(found, reverse=True)]


def private_imports(root: Path) -> list[str]:
    """``path:line from module import _name`` for each private name (one leading
    underscore, not a dunder) imported from another module, a package's
    ``__init__`` re-exporting its own modules' names included."""
    import ast

    found = []
    for relative, tree in _code_trees(root):
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not name.startswith("__"):
                    found.append(
                        f"{relative}:{node.lineno} from {module} import {name}"
                    )
    return found


def test_at_most_two_functions_are_over_80_lines():
    found = long_functions(ROOT)
    assert len(found) <= MAX_LONG_FUNCTIONS, (
        f"{len(found)} functions over {MAX_FUNCTION_LINES} lines (at most "
        f"{MAX_LONG_FUNCTIONS}; split them into helpers by idea):\n" + "\n".join(found)
    )


def test_no_private_name_is_imported_across_modules():
    found = private_imports(ROOT)
    assert not found, (
        f"{len(found)} private names imported from another module (make the name "
        "public if it is part of that module's interface, or move it where it "
        "is used):\n" + "\n".join(found)
    )


def test_the_code_checks_name_each_offender(tmp_path):
    package = tmp_path / "proposals" / "domain"
    package.mkdir(parents=True)
    body = "    x = 1\n"
    (package / "short.py").write_text(
        "@decorated\n@twice\ndef fits():\n" + body * (MAX_FUNCTION_LINES - 1)
    )
    (package / "long.py").write_text(
        "class Thing:\n    def method(self):\n" + ("    " + body) * MAX_FUNCTION_LINES
    )
    (package / "__init__.py").write_text(
        "from .long import Thing, _helper\nfrom . import __version__\n"
    )
    (tmp_path / "aifactory").mkdir()
    (tmp_path / "aifactory" / "use.py").write_text(
        "from proposals.domain.long import _helper as helper, __all__\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("from proposals.domain import _x\n")
    assert long_functions(tmp_path) == [
        f"proposals/domain/long.py:2 method: {MAX_FUNCTION_LINES + 1} lines"
    ]
    assert private_imports(tmp_path) == [
        "proposals/domain/__init__.py:1 from .long import _helper",
        "aifactory/use.py:1 from proposals.domain.long import _helper",
    ]
