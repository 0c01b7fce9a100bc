"""Every shipped systemd unit is sandboxed: ``systemd-analyze security`` rates each
service under 4.0 ("OK"; the units shipped without a sandbox were 8.5 "EXPOSED"),
and ``systemd-analyze verify`` finds no unknown option (a misspelt sandbox option
is ignored by systemd with a warning, and the unit runs without it).

Offline (``--offline=yes``): no running systemd is needed, only its
``systemd-analyze`` (Debian's ``systemd`` package, which scripts/system_packages.sh
installs for the tests and CI)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "systemd"
SERVICES = sorted(DEPLOY.glob("*.service"))
UNITS = sorted([*SERVICES, *DEPLOY.glob("*.timer")])
#: systemd's own bands: below 4.0 is "OK" (or better), 4.0 and above "MEDIUM".
MOST_EXPOSURE = 4.0
ANALYZE = shutil.which("systemd-analyze")

pytestmark = pytest.mark.skipif(
    ANALYZE is None,
    reason="systemd-analyze is not installed (Debian: apt-get install systemd; "
    "scripts/system_packages.sh installs it)",
)


def _analyze(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [ANALYZE, *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_units_are_found():
    names = {unit.name for unit in UNITS}
    assert {
        "aifactory-web@.service",
        "aifactory-worker@.service",
        "aifactory-expire.service",
        "aifactory-expire.timer",
        "aifactory-reminders.service",
        "aifactory-reminders.timer",
        "aifactory-digests.service",
        "aifactory-digests.timer",
    } <= names


@pytest.mark.parametrize("unit", SERVICES, ids=lambda unit: unit.name)
def test_each_service_is_rated_ok(unit):
    # --threshold is in tenths: the command fails when the exposure is above it.
    done = _analyze(
        "security",
        "--offline=yes",
        f"--threshold={round(MOST_EXPOSURE * 10) - 1}",
        "--no-pager",
        str(unit),
    )
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\w+)", done.stdout)
    assert found, done.stdout + done.stderr
    exposure, label = float(found.group(1)), found.group(2)
    exposed = [
        line.strip()
        for line in done.stdout.splitlines()
        if line.startswith("✗") and not line.rstrip().endswith(" 0.1")
    ]
    assert exposure < MOST_EXPOSURE, (
        f"{unit.name}: exposure {exposure} {label}; open:\n" + "\n".join(exposed)
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("unit", UNITS, ids=lambda unit: unit.name)
def test_each_unit_has_no_unknown_option(unit):
    done = _analyze("verify", "--man=no", str(unit))
    # The one complaint expected on a machine without the installation: the
    # virtual environment's programs are not there.
    problems = [
        line
        for line in done.stderr.splitlines()
        if line.strip() and "is not executable" not in line
    ]
    assert not problems, "\n".join(problems)
