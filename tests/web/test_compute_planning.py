"""Compute planning in the web app: peak throughput on the selection step, the
estimator inputs on the code entries, the sidebar, the compare-systems page and the
copy retargeted to another system."""

import io
import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.urls import reverse
from pypdf import PdfReader

from proposals import domain, services
from proposals.models import Cluster, Proposal
from tests.factories import CodeEntryFactory, JobTypeFactory, ProposalFactory

pytestmark = pytest.mark.django_db
EXAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "examples"
HX = {"HX-Request": "true"}


@pytest.fixture
def large(user):
    """The BSC Large Scale example (1.4 B parameters, on MareNostrum 5 ACC)."""
    text = (EXAMPLES / "bsc-large-scale.json").read_text(encoding="utf-8")
    return services.proposal_import(owner=user, document=domain.loads(text))


def test_catalogue_carries_the_datasheet_peaks(catalogue):
    peaks = dict(Cluster.objects.values_list("slug", "peak_bf16_tflops"))
    assert peaks["lumi-g"] == 383  # per MI250X (two GCDs), not per GCD
    assert peaks["marenostrum5-acc"] == peaks["jupiter-booster"] == 989
    assert peaks["leonardo-booster"] == peaks["vega-gpu"] == 312
    lumi = Cluster.objects.get(slug="lumi-g")
    assert lumi.peak_fp32_tflops == 47.9
    assert "amd.com" in lumi.peak_source and lumi.peak_checked is not None


def test_selection_step_shows_the_peak_with_source_and_date(user_client, proposal):
    url = reverse("proposals:step", args=[proposal.pk, "selection"])
    content = user_client.get(url).content.decode()
    assert 'data-testid="peak-throughput"' in content
    assert "383 TFLOP/s dense BF16/FP16" in content
    assert "47.9 TFLOP/s FP32" in content
    assert "checked 3 Dec 2026" in content


def test_estimator_inputs_save_through_the_codes_step(user_client, user):
    proposal = ProposalFactory(owner=user)
    code = CodeEntryFactory(proposal=proposal, position=0, name="trainer")
    JobTypeFactory(proposal=proposal, title="Pre-training", gpus=32, hours=24, count=1)
    url = reverse("proposals:step", args=[proposal.pk, "codes"])
    prefix = f"codes-{code.pk}-"
    data = {
        prefix + "role": "main",
        prefix + "name": "trainer",
        prefix + "version": "2.5",
        prefix + "references": "https://pytorch.org",
        prefix + "description": code.description,
        prefix + "model_use": "training",
        prefix + "model_parameters": "1,400,000,000",
        prefix + "training_tokens": "30,000,000,000",
        prefix + "dataset_samples": "",
        prefix + "epochs": "",
        prefix + "tokens_per_sample": "",
        prefix + "assumed_mfu_pct": "40",
        "autosave": "1",
    }
    response = user_client.post(url, data, headers=HX)
    assert response.status_code == 200
    code.refresh_from_db()
    assert code.model_parameters == Decimal("1400000000")
    assert code.training_tokens == Decimal("30000000000")
    content = user_client.get(url).content.decode()
    # 6 x 1.4e9 x 3e10 FLOPs at 40 % of 383 TFLOP/s: 457 GPU-hours
    assert 'data-testid="compute-estimate"' in content
    assert "6·N·D at 40 % MFU" in content
    assert "457 GPU-hours" in content


def test_estimator_refuses_an_mfu_above_100(user_client, user):
    proposal = ProposalFactory(owner=user)
    code = CodeEntryFactory(proposal=proposal, position=0)
    url = reverse("proposals:step", args=[proposal.pk, "codes"])
    prefix = f"codes-{code.pk}-"
    data = {
        prefix + "role": "main",
        prefix + "name": code.name,
        prefix + "version": code.version,
        prefix + "references": code.references,
        prefix + "description": code.description,
        prefix + "model_use": "training",
        prefix + "assumed_mfu_pct": "140",
        "autosave": "1",
    }
    content = user_client.post(url, data, headers=HX).content.decode()
    assert "a percentage is at most 100" in content
    code.refresh_from_db()
    assert code.assumed_mfu_pct is None


def test_sidebar_shows_the_mfu_check_and_the_compare_link(user_client, large):
    url = reverse("proposals:step", args=[large.pk, "scalability"])
    content = user_client.get(url).content.decode()
    assert 'id="live-compute"' in content and 'data-testid="mfu-check"' in content
    assert reverse("proposals:compare_systems", args=[large.pk]) in content
    assert "PLAN-2" in content


def test_compare_page_lists_every_system_with_estimates_marked(user_client, large):
    url = reverse("proposals:compare_systems", args=[large.pk])
    response = user_client.get(url)
    assert response.status_code == 200
    comparison = response.context["comparison"]
    assert len(comparison.options) == Cluster.objects.count()
    content = response.content.decode()
    for name in Cluster.objects.values_list("name", flat=True):
        assert name in content
    assert 'data-system="lumi-g"' in content
    assert "estimate" in content and "Walltime: Pre-training runs" in content
    # 110,848 GPU-hours on H100 are 286,237 on MI250X by the peak ratio 989 / 383.
    assert "286,237" in content
    assert "target" in content


def test_compare_page_is_only_for_the_owner(client, other_user, large):
    client.force_login(other_user)
    url = reverse("proposals:compare_systems", args=[large.pk])
    assert client.get(url).status_code == 404
    copy_url = reverse("proposals:retarget_copy", args=[large.pk])
    assert client.post(copy_url, {"system": "lumi-g"}).status_code == 404
    assert Proposal.objects.count() == 1


def test_one_click_copy_retargeted_to_another_system(user_client, user, large):
    url = reverse("proposals:retarget_copy", args=[large.pk])
    assert user_client.get(url).status_code == 405
    response = user_client.post(url, {"system": "lumi-g"})
    copy = Proposal.objects.exclude(pk=large.pk).get()
    assert response.status_code == 302
    assert response.url == reverse("proposals:step", args=[copy.pk, "selection"])
    assert copy.owner == user and copy.system.slug == "lumi-g"
    assert copy.title == f"{large.title} (on LUMI-G)"
    # Everything else as entered: the same rows and the same request.
    assert copy.total_gpu_hours == large.total_gpu_hours
    assert copy.jobs.count() == large.jobs.count() == 3
    assert copy.codes.get().model_parameters == Decimal("1400000000")
    assert copy.measurements.filter(code__isnull=False).count() == 5
    large.refresh_from_db()
    assert large.system.slug == "marenostrum5-acc"
    page = user_client.get(response.url).content.decode()
    assert "aimed at LUMI-G" in page


def test_copy_to_an_unknown_system_is_refused(user_client, large):
    url = reverse("proposals:retarget_copy", args=[large.pk])
    response = user_client.post(url, {"system": "no-such-system"}, follow=True)
    assert "Choose one of the systems listed." in response.content.decode()
    assert Proposal.objects.count() == 1


def test_export_json_carries_the_estimator_inputs(user_client, large):
    url = reverse("proposals:export_json", args=[large.pk])
    data = json.loads(user_client.get(url).content)
    assert data["codes"][0]["model_parameters"] == 1400000000
    assert data["codes"][0]["model_use"] == "training"


def test_portal_text_states_how_the_estimate_was_made(user_client, large):
    code = large.codes.get()
    code.training_tokens = Decimal("30000000000")
    code.save()
    url = reverse("proposals:export_portal", args=[large.pk])
    content = user_client.get(url).content.decode()
    assert "Estimated from 6·N·D at 30 % MFU (measured)." in content
    assert "236 GPU-hours on MareNostrum 5 ACC" in content


def test_markdown_and_pdf_carry_the_mfu_check_and_other_systems(user_client, large):
    markdown = user_client.get(
        reverse("proposals:export_markdown", args=[large.pk])
    ).content.decode()
    assert "**MFU check:** 5 measurement(s) checked" in markdown
    assert "LUMI-G 286,237 (estimate)" in markdown
    response = user_client.get(reverse("proposals:export_pdf", args=[large.pk]))
    pages = PdfReader(io.BytesIO(response.content)).pages
    text = " ".join(" ".join(page.extract_text().split()) for page in pages)
    assert "MFU check" in text and "GPU-hours on other systems" in text


def test_admin_edits_the_peak_throughput(admin_client, catalogue):
    lumi = Cluster.objects.get(slug="lumi-g")
    url = reverse("admin:proposals_cluster_change", args=[lumi.pk])
    content = admin_client.get(url).content.decode()
    for label in (
        "Peak dense BF16/FP16 TFLOP/s per GPU",
        "Peak FP32 TFLOP/s per GPU",
        "Peak throughput source",
        "Peak throughput checked on",
    ):
        assert label in content
    listing = admin_client.get(reverse("admin:proposals_cluster_changelist"))
    assert "383" in listing.content.decode()
