"""The assess command's compute planning: the named JSON keys and the text report."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from proposals.domain import loads

EXAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "examples"
ESTIMATE_KEYS = (
    "model_use",
    "model_parameters",
    "training_tokens",
    "dataset_samples",
    "epochs",
    "tokens_per_sample",
    "assumed_mfu_pct",
)
pytestmark = pytest.mark.django_db


def assess(path, *options) -> str:
    out = io.StringIO()
    call_command("assess", str(path), *options, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_json_report_has_the_compute_keys(catalogue, tmp_path):
    document = json.loads((EXAMPLES / "bsc-large-scale.json").read_text())
    document["codes"][0]["training_tokens"] = 30_000_000_000
    path = tmp_path / "large.json"
    path.write_text(json.dumps(document))
    data = json.loads(assess(path))
    estimate = data["compute_estimate"]
    assert estimate["peak_tflops_per_gpu"] == 989
    assert estimate["entries"][0]["formula"] == "6·N·D at 30% MFU"
    assert estimate["entries"][0]["mfu_from"] == "measured"
    assert estimate["job_plan_training_gpu_hours"] == 104448
    first = data["mfu_check"][0]
    assert (first["gpus"], first["stated_mfu_pct"]) == (8, 38)
    assert first["aggregate_mfu_pct"] == pytest.approx(4.038462)
    assert first["reconciling_reading"] == "per_gpu"
    systems = {s["system"]: s for s in data["systems_comparison"]["systems"]}
    assert systems["marenostrum5-acc"]["target"] is True
    assert systems["lumi-g"]["estimate"] is True
    assert systems["lumi-g"]["walltime_limit_hit"] == ["Pre-training runs", "Ablations"]
    codes = {f["code"] for f in data["findings"]}
    assert {"PLAN-1", "PLAN-2"} <= codes


def test_text_report_shows_estimate_mfu_and_systems(catalogue, tmp_path):
    document = json.loads((EXAMPLES / "bsc-large-scale.json").read_text())
    document["codes"][0]["training_tokens"] = 30_000_000_000
    path = tmp_path / "large.json"
    path.write_text(json.dumps(document))
    out = assess(path, "--format", "text")
    assert "Compute estimate on MareNostrum 5 ACC:" in out
    assert "Megatron-LM: 6·N·D at 30% MFU (measured): 236 GPU-hours" in out
    assert "stated 38%  implied 4.0% in all, 32.3% per GPU" in out
    assert "Other systems (GPU-hours rescaled; * estimate from the peak ratio: " in out
    # 110,848 x 989 / 383 = 286,237 GPU-hours of MI250X: Large Scale.
    assert "LUMI-G" in out and "286,237*  Large Scale" in out


def test_a_file_from_before_the_estimator_imports_unchanged(catalogue, tmp_path):
    """Files written before the estimator's keys existed still import, as before."""
    document = json.loads((EXAMPLES / "lumi-fast-lane.json").read_text())
    for code in document["codes"]:
        for key in ESTIMATE_KEYS:
            del code[key]
    proposal = loads(json.dumps(document))
    assert all(c.model_use == "training" for c in proposal.codes)
    assert all(c.model_parameters is None for c in proposal.codes)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document))
    data = json.loads(assess(path))
    assert data["compute_estimate"] is None and data["mfu_check"] == []


@pytest.mark.parametrize(
    "key, value",
    [("assumed_mfu_pct", 140), ("model_parameters", 0), ("epochs", -1)],
)
def test_out_of_range_estimator_inputs_are_refused_with_their_path(
    catalogue, tmp_path, key, value
):
    document = json.loads((EXAMPLES / "bsc-large-scale.json").read_text())
    document["codes"][0][key] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("assess", str(path), stdout=io.StringIO(), stderr=err)
    assert exit_.value.code == 2
    assert f"codes[0].{key}:" in err.getvalue()
