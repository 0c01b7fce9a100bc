"""The lock files pin, with hashes, every dependency pyproject.toml names, within its
range; the production lock holds no test tool (``make lock`` writes them with uv)."""

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s\\]+)", re.MULTILINE)


def _pins(name: str) -> dict[str, str]:
    text = (ROOT / "requirements" / name).read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text)
    for block in blocks:
        if PIN.match(block):
            assert "--hash=sha256:" in block, f"{name}: {block.splitlines()[0]}"
    return {canonicalize_name(n): v for n, v in PIN.findall(text)}


@pytest.mark.parametrize(
    "lock, requirements",
    [
        ("production.txt", PROJECT["dependencies"]),
        (
            "test.txt",
            PROJECT["dependencies"] + PROJECT["optional-dependencies"]["test"],
        ),
    ],
)
def test_every_dependency_is_pinned_within_its_range(lock, requirements):
    pins = _pins(lock)
    for line in requirements:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is missing from requirements/{lock}"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements/{lock} pins {name}=={pins[name]}, "
            f"outside {requirement.specifier}: run make lock"
        )


def test_the_production_lock_has_no_test_tools():
    pins = _pins("production.txt")
    for line in PROJECT["optional-dependencies"]["test"]:
        assert canonicalize_name(Requirement(line).name) not in pins
