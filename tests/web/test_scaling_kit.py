"""The scaling kit on the web (issue 37): the scalability step offers "Get scripts
for the missing measurements", a preview page names the counts, hours, total and
the system's facts, and the zip holds scripts that bash accepts."""

import io
import subprocess
import zipfile

import pytest
from django.urls import reverse

from tests.factories import CodeEntryFactory, ScalingMeasurementFactory

pytestmark = pytest.mark.django_db
COMMAND = "torchrun --nproc-per-node=4 train.py --config configs/7b.yaml"


@pytest.fixture
def one_node(proposal):
    """The factory's LUMI-G proposal measured on one node (1, 2, 4 GPUs), planning
    32-GPU jobs, with a launch command."""
    proposal.max_gpus_per_job = 32
    proposal.save()
    code = CodeEntryFactory(proposal=proposal, launch_command=COMMAND)
    for gpus in (1, 2, 4):
        ScalingMeasurementFactory(
            proposal=proposal, code=code, gpus=gpus, throughput=100 * gpus
        )
    return proposal


def test_the_step_offers_the_scripts_with_their_counts(user_client, one_node):
    page = user_client.get(reverse("proposals:step", args=[one_node.pk, "scalability"]))
    text = page.content.decode()
    assert "Get scripts for the missing measurements" in text
    assert "GPU counts 8, 16, 32" in text
    assert reverse("proposals:kit", args=[one_node.pk]) in text


def test_preview_shows_counts_hours_total_and_facts(user_client, one_node):
    page = user_client.get(reverse("proposals:kit", args=[one_node.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    for script in ("scaling_8gpus.sh", "scaling_16gpus.sh", "scaling_32gpus.sh"):
        assert script in text
    assert 'data-testid="kit-total">28</td>' in text
    assert "The Playground limit is 5,000 GPU-hours" in text
    assert "standard-g" in text and "docs.lumi-supercomputer.eu" in text
    assert 'data-testid="kit-unverified"' in text
    assert "#SBATCH --gpus-per-node=8" in text  # the first script, GCDs
    assert 'data-testid="kit-slurm-per-node">8</dd>' in text


def test_the_facts_give_a_whole_nodes_slurm_count_for_a_small_first_job(
    user_client, proposal
):
    """A kit whose first script asks for 2 of a node's 4 MI250X: the system's facts
    still say a LUMI-G node has 8 GPUs as Slurm counts them (not the 4 GCDs that
    first job asks for)."""
    proposal.max_gpus_per_job = 4
    proposal.save()
    code = CodeEntryFactory(proposal=proposal, launch_command=COMMAND)
    ScalingMeasurementFactory(proposal=proposal, code=code, gpus=1, throughput=100)
    text = user_client.get(reverse("proposals:kit", args=[proposal.pk])).text
    assert "scaling_2gpus.sh" in text
    assert "#SBATCH --gpus-per-node=4" in text  # the first script: 2 MI250X
    assert 'data-testid="kit-slurm-per-node">8</dd>' in text


def test_zip_holds_valid_scripts_and_readme(user_client, one_node, tmp_path):
    response = user_client.get(
        reverse("proposals:kit_zip", args=[one_node.pk]) + "?launcher=srun&steps=200"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    folder = f"scaling-kit-{one_node.pk}"
    assert sorted(archive.namelist()) == sorted(
        f"{folder}/{n}"
        for n in (
            "README.txt",
            "scaling_8gpus.sh",
            "scaling_16gpus.sh",
            "scaling_32gpus.sh",
        )
    )
    archive.extractall(tmp_path)
    for path in (tmp_path / folder).glob("*.sh"):
        assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
        text = path.read_text()
        assert "export MAX_STEPS=200" in text
        assert "srun --cpu-bind=mask_cpu:" in text


def test_nothing_missing_offers_no_scripts(user_client, one_node):
    one_node.max_gpus_per_job = 4
    one_node.save()
    step = user_client.get(reverse("proposals:step", args=[one_node.pk, "scalability"]))
    assert "Get scripts for the missing measurements" not in step.content.decode()
    page = user_client.get(reverse("proposals:kit", args=[one_node.pk]))
    assert "Nothing is missing" in page.content.decode()


def test_off_the_team_is_a_404(client, other_user, one_node):
    client.force_login(other_user)
    assert client.get(reverse("proposals:kit", args=[one_node.pk])).status_code == 404
    url = reverse("proposals:kit_zip", args=[one_node.pk])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    ("language", "title", "readme"),
    [
        ("de", "Skripte für die fehlenden Messungen", "Skalierungspaket für LUMI-G"),
        ("fr", "Scripts pour les mesures manquantes", "Kit de mise à l’échelle pour"),
    ],
)
def test_preview_and_readme_in_the_persons_language(
    user_client, one_node, language, title, readme
):
    page = user_client.get(
        reverse("proposals:kit", args=[one_node.pk]), HTTP_ACCEPT_LANGUAGE=language
    )
    assert title in page.content.decode()
    response = user_client.get(
        reverse("proposals:kit_zip", args=[one_node.pk]), HTTP_ACCEPT_LANGUAGE=language
    )
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    text = archive.read(f"scaling-kit-{one_node.pk}/README.txt").decode()
    assert text.startswith(readme)


def test_kit_logs_in_a_zip_come_back_at_the_kits_counts(
    user_client, one_node, run_tasks
):
    """The kit's logs, zipped: each is read, and a log that states no GPU count
    takes the kit's count from its name (LUMI-G: no GCD halving of it)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from proposals.models import ScalingMeasurement
    from tests.domain.test_training_logs import LOGS

    log = (LOGS / "torchtitan-2024-wps-no-mesh.log").read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for gpus in (8, 16, 32):
            archive.writestr(f"kit/scaling_{gpus}gpus_{gpus}00.log", log)
    upload = SimpleUploadedFile("kit-logs.zip", buffer.getvalue(), "application/zip")
    url = reverse("proposals:logs", args=[one_node.pk])
    assert user_client.post(url, {"logs-files": [upload]}).status_code == 200
    run_tasks()
    user_client.post(url, {"logs_add": "1"})
    added = ScalingMeasurement.objects.filter(proposal=one_node, source__gt="")
    assert sorted(m.gpus for m in added) == [8, 16, 32]
    step = user_client.get(reverse("proposals:step", args=[one_node.pk, "scalability"]))
    assert "Get scripts for the missing measurements" not in step.content.decode()


def test_a_download_is_recorded_and_shown_to_staff(
    user_client, client, staff_user, one_node
):
    from proposals.models import ScalingKit

    user_client.get(reverse("proposals:kit_zip", args=[one_node.pk]))
    (record,) = ScalingKit.objects.filter(proposal=one_node)
    assert record.counts == [8, 16, 32] and record.system == "lumi-g"
    ScalingMeasurementFactory(
        proposal=one_node, gpus=8, source="kit/scaling_8gpus_800.log, lines 2-9: x"
    )
    page = user_client.get(reverse("proposals:kit", args=[one_node.pk]))
    text = page.content.decode()
    assert "for 8, 16, 32 GPUs on lumi-g" in text
    assert "Logs back for 8 GPUs." in text and "Still to come: 16, 32 GPUs." in text


def test_the_staff_page_names_the_kit(client, staff_user, sent):
    from proposals.models import ScalingKit

    url = reverse("proposals:staff_review", args=[sent.pk])
    client.force_login(staff_user)
    assert 'data-testid="kit-history"' not in client.get(url).content.decode()
    ScalingKit.objects.create(
        proposal=sent, system="lumi-g", counts=[32, 64], launcher="srun", steps=100
    )
    text = client.get(url).content.decode()
    assert "for 32, 64 GPUs on lumi-g" in text
    assert "No log has come back yet." in text


def _kit_with_one_log_back(proposal):
    """A kit handed out at a known moment, with the log of its 8 GPUs back."""
    import datetime

    from proposals.models import ScalingKit

    record = ScalingKit.objects.create(
        proposal=proposal,
        system="lumi-g",
        counts=[8, 16, 32],
        launcher="srun",
        steps=100,
    )
    moment = datetime.datetime(2026, 12, 4, 9, 30, tzinfo=datetime.UTC)
    ScalingKit.objects.filter(pk=record.pk).update(created_at=moment)
    ScalingMeasurementFactory(
        proposal=proposal, gpus=8, source="kit/scaling_8gpus_800.log, lines 2-9: x"
    )


KIT_GENERATED = "Scripts generated 4 Dec 2026, 10:30 CET for 8, 16, 32 GPUs on lumi-g."
KIT_BACK = "Logs back for 8 GPUs. Still to come: 16, 32 GPUs."


def test_the_markdown_names_the_kit_and_the_logs_back(user_client, one_node):
    url = reverse("proposals:export_markdown", args=[one_node.pk])
    assert "Scaling kit" not in user_client.get(url).content.decode()
    _kit_with_one_log_back(one_node)
    # In the portal's English whatever the reader's language, like the rest.
    text = user_client.get(url, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "### Scaling kit" in text
    assert f"- {KIT_GENERATED}" in text and f"- {KIT_BACK}" in text


def test_the_pdf_names_the_kit_and_the_logs_back(
    user_client, one_node, run_tasks, tmp_path
):
    from tests.web.test_exports import get_pdf

    _kit_with_one_log_back(one_node)
    url = reverse("proposals:export_pdf", args=[one_node.pk])
    path = tmp_path / "summary.pdf"
    path.write_bytes(get_pdf(user_client, url, run_tasks).content)
    out = subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
    )
    text = " ".join(out.stdout.split())
    assert KIT_GENERATED in text and KIT_BACK in text
