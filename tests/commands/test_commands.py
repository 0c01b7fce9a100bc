"""The assess, export_proposal and import_proposal commands, through call_command."""

import io
import json
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from proposals.assess import assess_proposal, proposal_to_domain, with_children
from proposals.models import Proposal

EXAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "examples"
pytestmark = pytest.mark.django_db


def run(*args, stdin=None, monkeypatch=None):
    """Run a command; return (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        call_command(*args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_examples_assess_without_errors(catalogue, path):
    code, out, _ = run("assess", str(path))
    assert code == 0
    assert json.loads(out)["counts"]["error"] == 0


def test_lumi_numbers_in_json_output(catalogue):
    _, out, _ = run("assess", str(EXAMPLES / "lumi-fast-lane.json"))
    data = json.loads(out)
    assert data["tier"] == "fast_lane"
    assert data["totals"]["job_plan_gpu_hours"] == 18176
    assert [(p["speedup"], p["efficiency"]) for p in data["scaling"]][1:] == [
        (1.9, 0.95),
        (3.520833, 0.880208),
    ]
    assert data["projection"]["target_gpus"] == 32


def test_text_output_shows_guide_figures(catalogue):
    code, out, _ = run(
        "assess", str(EXAMPLES / "bsc-large-scale.json"), "--format", "text"
    )
    assert code == 0
    for figure in ("1.96x  98%", "3.75x  94%", "6.83x  85%", "11.25x  70%"):
        assert figure in out
    assert "Tier: Large Scale" in out


def test_error_findings_exit_1(catalogue, tmp_path):
    data = json.loads((EXAMPLES / "lumi-fast-lane.json").read_text())
    data["selection"]["total_gpu_hours"] = 20000
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    code, out, _ = run("assess", str(path))
    assert code == 1
    assert "SCAL-3" in [f["code"] for f in json.loads(out)["findings"]]


def test_stdin(catalogue, monkeypatch):
    text = (EXAMPLES / "playground.json").read_text()
    code, out, _ = run("assess", "-", stdin=text, monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["tier"] == "playground"


@pytest.mark.parametrize(
    "content, expected",
    [
        ("{ not json", "$: not valid JSON"),
        ('{"format": "aifactory-proposal/9"}', "format: must be one of"),
        ('{"format": "aifactory-proposal/1"}', "selection: is required"),
        (None, "scalability.jobs[0].gpus: must be a number"),
    ],
)
def test_invalid_files_exit_2_naming_the_problem(
    catalogue, tmp_path, content, expected
):
    if content is None:
        data = json.loads((EXAMPLES / "lumi-fast-lane.json").read_text())
        data["scalability"]["jobs"][0]["gpus"] = "eight"
        content = json.dumps(data)
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run("assess", str(path))
    assert code == 2 and out == ""
    assert expected in err


def test_missing_file_exit_2(catalogue, tmp_path):
    code, _, err = run("assess", str(tmp_path / "nope.json"))
    assert code == 2 and "Cannot read" in err


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_import_then_export_is_byte_identical(user, path):
    code, out, _ = run("import_proposal", str(path), "--owner", user.username)
    assert code == 0
    proposal = Proposal.objects.get(pk=int(out))
    assert proposal.owner == user
    _, exported, _ = run("export_proposal", str(proposal.pk))
    assert exported == path.read_text(encoding="utf-8")


def test_adapter_assessment_matches_file_and_uses_few_queries(
    user, django_assert_max_num_queries
):
    _, out, _ = run(
        "import_proposal",
        str(EXAMPLES / "lumi-fast-lane.json"),
        "--owner",
        user.username,
    )
    # 6 + call terms + country eligibility + GPU variants
    with django_assert_max_num_queries(9):
        proposal = with_children(Proposal.objects.filter(pk=int(out))).get()
        assessment = assess_proposal(proposal)
    assert assessment.plan.total_gpu_hours == 18176
    assert proposal_to_domain(proposal).scalability.measurements[0].code == 0


def test_import_unknown_owner_and_unknown_system(user, tmp_path):
    with pytest.raises(Exception, match="no user"):
        call_command(
            "import_proposal", str(EXAMPLES / "playground.json"), "--owner", "x"
        )
    data = json.loads((EXAMPLES / "playground.json").read_text())
    data["selection"]["system"] = "atlantis"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    code, _, err = run("import_proposal", str(path), "--owner", user.username)
    assert code == 2 and "selection.system" in err
    assert not Proposal.objects.filter(owner=user).exists()


@pytest.mark.django_db
def test_load_demo_puts_proposals_in_the_review_queue(catalogue):
    from django.core.management import call_command

    from proposals.models import Proposal, ReviewState

    call_command("load_demo", "--with-public-passwords", verbosity=0)
    call_command("load_demo", "--with-public-passwords", verbosity=0)  # idempotent
    statuses = sorted(
        ReviewState.objects.values_list("proposal__status", "latest_revision__number")
    )
    assert statuses == [
        (Proposal.Status.READY, 1),
        (Proposal.Status.SUBMITTED, 1),
        (Proposal.Status.SUBMITTED, 2),  # the change request, answered
    ]
    assert Proposal.objects.filter(status=Proposal.Status.DRAFT).count() == 2


@pytest.mark.parametrize("command", ["assess", "import_proposal"])
@pytest.mark.parametrize("digits", [309, 5_000])
def test_an_integer_past_float_range_exits_2_naming_its_path(
    user, tmp_path, command, digits
):
    text = (EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8")
    path = tmp_path / "huge.json"
    path.write_text(
        text.replace('"max_gpus_per_job": 32', f'"max_gpus_per_job": {"9" * digits}')
    )
    owner = ["--owner", user.username] if command == "import_proposal" else []
    code, out, err = run(command, str(path), *owner)
    assert code == 2 and out == ""
    assert "selection.max_gpus_per_job: must be a finite number" in err
    assert not Proposal.objects.exists()
