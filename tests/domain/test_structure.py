"""No import cycle (engine and app), small engine modules, every rule registered.

Imports are read statically (``ast``), including those inside functions: a deferred
import that closes a loop is still a cycle. As in import-linter, a module depends on
what it imports, not on the packages that contain it.
"""

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import proposals.domain
from proposals.domain import rules

PACKAGE = Path(proposals.domain.__file__).parent
MAX_LINES = 500


def module_name(path: Path, root: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports (anywhere in its body)."""
    modules = {module_name(p, root, package): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        graph[name] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".")
                    anchor = anchor[: len(anchor) - node.level + is_package]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        return error.args[1]
    return None


@pytest.mark.parametrize(
    "root, package",
    [(PACKAGE, "proposals.domain"), (PACKAGE.parent, "proposals")],
    ids=["proposals.domain", "proposals"],
)
def test_no_import_cycle(root, package):
    assert cycle(import_graph(root, package)) is None


def test_the_check_sees_a_deferred_import_cycle(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from . import a\n")
    (root / "a.py").write_text("from .sub.b import thing\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "b.py").write_text("def thing():\n    from .. import a\n")
    graph = import_graph(root, "pkg")
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.sub.b"},
        "pkg.sub": set(),
        "pkg.sub.b": {"pkg.a"},
    }
    assert set(cycle(graph)) == {"pkg.a", "pkg.sub.b"}


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_engine_modules_are_small(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines; split it"


def test_every_rule_family_module_registers_rules():
    families = {
        f"proposals.domain.rulebook.{p.stem}"
        for p in (PACKAGE / "rulebook").glob("*.py")
        if p.stem not in ("__init__", "common")
    }
    assert families == {r.func.__module__ for r in rules()}


def test_the_registry_is_complete_whatever_is_imported_first():
    script = (
        "from proposals.domain.findings import rules; "
        "print(' '.join(r.code for r in rules()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parent.parent,
    )
    assert result.stdout.split() == [r.code for r in rules()]
