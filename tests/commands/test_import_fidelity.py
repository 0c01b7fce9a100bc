"""Importing keeps what the file says or refuses it with a path; the command line
works before the database exists."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from proposals import domain, services
from proposals.assess import proposal_to_domain, with_children
from proposals.models import Proposal

EXAMPLE = Path(settings.BASE_DIR) / "fixtures" / "examples" / "lumi-fast-lane.json"
pytestmark = pytest.mark.django_db


def document(**changes):
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    for path, value in changes.items():
        target = data
        *parents, last = path.split("/")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"scalability/jobs/0/gpus": -8}, "scalability.jobs[0].gpus"),
        ({"scalability/jobs/1/hours": -2}, "scalability.jobs[1].hours"),
        ({"scalability/measurements/0/throughput": -5}, "scalability.measurements[0]"),
        ({"codes/0/references": ["a", ""]}, "codes[0].references[1]"),
        ({"codes/0/references": ["line 1\nline 2"]}, "codes[0].references[0]"),
    ],
)
def test_values_the_database_cannot_hold_are_refused_with_their_path(
    user, change, path
):
    with pytest.raises(domain.FormatError) as excinfo:
        proposal = domain.parse(document(**change))
        services.proposal_import(owner=user, document=proposal)
    assert any(where.startswith(path) for where, _ in excinfo.value.problems)
    assert not Proposal.objects.exists()


def test_zero_stands_for_a_blank_cell_and_survives_the_round_trip(user):
    source = domain.parse(document(**{"scalability/jobs/0/gpus": 0}))
    stored = services.proposal_import(owner=user, document=source)
    assert stored.jobs.order_by("position").first().gpus is None
    again = proposal_to_domain(with_children(Proposal.objects.all()).get())
    assert domain.dumps(again) == domain.dumps(source)


def test_assess_works_before_the_database_is_migrated(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(DJANGO_DEBUG="1", DATABASE_URL=f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    result = subprocess.run(
        [sys.executable, "manage.py", "assess", str(EXAMPLE)],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "fixtures/catalogue.json" in result.stderr
    assert json.loads(result.stdout)["totals"]["job_plan_gpu_hours"] == 18176
