"""A foundation-model request at the scale of today's open models (issue 32): Llama
3.1 405B was trained on 15.6 T tokens (3.8e25 FLOPs, 30.84 M H100 GPU-hours, Meta's
model card). ``assess``, the import and a re-import of the wizard's own export take
it, and nothing typed is changed on the way."""

import json
from decimal import Decimal

import pytest

from proposals import domain, services
from proposals.assess import with_children
from proposals.exports import jsonio
from proposals.models import Proposal
from tests.commands.test_commands import EXAMPLES, run
from tests.factories import CodeEntryFactory, ProposalFactory

pytestmark = pytest.mark.django_db

PARAMETERS = 405_000_000_000
TOKENS = 15_600_000_000_000
GPU_HOURS = 30_840_000  # Llama 3.1 405B on H100


def foundation_model(tmp_path):
    """The BSC Large Scale example, as a 405 B model on 15.6 T tokens."""
    data = json.loads((EXAMPLES / "bsc-large-scale.json").read_text("utf-8"))
    data["selection"]["total_gpu_hours"] = GPU_HOURS
    data["codes"][0]["model_parameters"] = PARAMETERS
    data["codes"][0]["training_tokens"] = TOKENS
    path = tmp_path / "foundation.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_assess_takes_a_foundation_model_request(catalogue, tmp_path):
    code, out, err = run("assess", str(foundation_model(tmp_path)))
    assert code in (0, 1), err
    entry = json.loads(out)["compute_estimate"]["entries"][0]
    assert entry["parameters"] == PARAMETERS
    assert entry["tokens"] == TOKENS
    assert entry["flops"] == pytest.approx(6 * PARAMETERS * TOKENS)  # 3.79e25


def test_import_takes_a_foundation_model_request(user, tmp_path):
    path = foundation_model(tmp_path)
    document = jsonio.check_file(path.read_bytes())
    proposal = services.proposal_import(owner=user, document=document)
    code = proposal.codes.get()
    assert (code.model_parameters, code.training_tokens) == (PARAMETERS, TOKENS)
    assert proposal.total_gpu_hours == GPU_HOURS


def test_a_foundation_model_draft_is_restored_from_its_own_backup(user):
    draft = ProposalFactory(owner=user, total_gpu_hours=Decimal(GPU_HOURS))
    CodeEntryFactory(
        proposal=draft,
        model_parameters=Decimal(PARAMETERS),
        training_tokens=Decimal(TOKENS),
    )
    backup = jsonio.export_text(
        with_children(Proposal.objects.filter(pk=draft.pk)).get()
    )
    assert f'"training_tokens": {TOKENS},' in backup
    restored = services.proposal_import(owner=user, document=jsonio.check_file(backup))
    assert restored.codes.get().training_tokens == TOKENS
    again = with_children(Proposal.objects.filter(pk=restored.pk)).get()
    assert jsonio.export_text(again) == backup


def test_the_report_writes_flops_beyond_2_53_as_a_float_not_false_digits(
    catalogue, tmp_path
):
    """3.79e25 as a 26-digit integer would print binary noise as digits a reader
    takes for exact; the report writes it as a JSON float, which reads back to the
    same double."""
    _, out, _ = run("assess", str(foundation_model(tmp_path)))
    assert '"flops": 3.7908e+25' in out
    assert domain.numbers.json_number(3.7908e25) == 3.7908e25
