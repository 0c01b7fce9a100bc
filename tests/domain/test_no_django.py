"""The engine must stay importable without Django."""

import ast
from pathlib import Path

import proposals.domain

PACKAGE = Path(proposals.domain.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_module_of_the_domain_imports_django():
    offenders = {
        path.name: sorted(
            m for m in imported_modules(path) if m.split(".")[0] == "django"
        )
        for path in PACKAGE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_sees_a_django_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from django.db import models\nimport django.conf\n")
    assert imported_modules(sample) == {"django.db", "django.conf"}
