"""The scaling kit's whole loop in Chromium (issue 37), on LUMI-G and on
MareNostrum 5 ACC: a Fast Lane proposal measured on one node (1, 2 and 4 GPUs)
planning 32-GPU jobs is told to measure closer to its target; "Get scripts for
the missing measurements" previews 8, 16 and 32 GPUs within the Playground limit;
the zip is downloaded; each script's log is written as a run would write it (a
stand-in for the training command: torchtitan lines, no GPU count in them, named
as the script names its log); the logs, zipped, go back through "Add measurements
from training logs"; the table gains 8, 16 and 32 and the finding is gone."""

import io
import re
import subprocess
import zipfile
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from proposals.models import Cluster, ScalingMeasurement
from tests.e2e.test_input_trust import log_in
from tests.factories import (
    CodeEntryFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UserFactory,
)

COMMAND = "torchrun --nproc-per-node=4 train.py --config configs/7b.yaml"
PER_GPU = 2000  # tokens/s per GPU on one GPU
# The per-GPU throughput's share at each count (one node, then the kit's).
EFFICIENCY = {1: 1.0, 2: 0.99, 4: 0.975, 8: 0.95, 16: 0.93, 32: 0.9}
# What the Fast Lane's extrapolation finding (SCAL-6) asks for.
MEASURE_CLOSER = "Measure closer to the target size."


def stand_in_log(gpus: int, steps: int, every: int) -> str:
    """The log the kit's run would print at ``gpus`` GPUs: a torchtitan loop
    logging every ``every`` of ``steps`` steps (no mesh line, so no GPU count:
    the file's name gives it), the first interval slower (the warm-up)."""
    wps = round(PER_GPU * EFFICIENCY[gpus])
    lines = [
        "+ torchrun --nproc_per_node=4 train.py --job.config_file ./train_configs/7b.toml",
        "[rank0]:2026-12-05 10:00:01,000 - root - INFO - Starting job: stand-in",
    ]
    for i, step in enumerate(range(every, steps + 1, every)):
        rate = wps // 4 if i == 0 else wps + (i % 3) - 1
        lines.append(
            f"[rank0]:2026-12-05 10:{1 + i:02d}:00,000 - root - INFO - step: {step}  "
            f"loss: {10.0 - i * 0.1:.4f}  memory: 60.12GiB(76.05%)  "
            f"wps: {rate:,}  mfu: 40.00%"
        )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("slug", "per_node"), [("lumi-g", 8), ("marenostrum5-acc", 4)], ids=["lumi", "mn5"]
)
def test_kit_download_run_and_logs_back(
    browser, live_server, e2e_catalogue, artifacts, run_tasks, tmp_path, slug, per_node
):
    user = UserFactory()
    proposal = ProposalFactory(
        owner=user,
        system=Cluster.objects.get(slug=slug),
        total_gpu_hours=Decimal("16000"),  # Fast Lane: extrapolation is judged
        max_gpus_per_job=32,
    )
    code = CodeEntryFactory(proposal=proposal, launch_command=COMMAND)
    for gpus in (1, 2, 4):
        ScalingMeasurementFactory(
            proposal=proposal,
            code=code,
            gpus=gpus,
            throughput=round(PER_GPU * EFFICIENCY[gpus] * gpus),
            unit="tokens/s",
        )
    context = browser.new_context(locale="en-US", accept_downloads=True)
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/scalability/")
    findings = page.locator("#live-findings")
    expect(findings).to_contain_text(MEASURE_CLOSER)

    # The preview: 8, 16 and 32 GPUs, within the Playground limit.
    link = page.get_by_test_id("kit-link")
    expect(link).to_contain_text("GPU counts 8, 16, 32")
    link.get_by_role("link", name="Get scripts for the missing measurements").click()
    table = page.get_by_test_id("kit-table")
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(3)
    for row, gpus in zip(rows.all(), (8, 16, 32), strict=True):
        expect(row.locator("td").nth(1)).to_have_text(str(gpus))
    total = float(page.get_by_test_id("kit-total").inner_text().replace(",", ""))
    assert 0 < total <= 5000
    expect(page.get_by_test_id("kit-budget")).to_contain_text(
        "The Playground limit is 5,000 GPU-hours"
    )
    expect(page.get_by_test_id("kit-budget")).not_to_contain_text("above")
    expect(page.get_by_test_id("kit-slurm-per-node")).to_have_text(str(per_node))
    page.screenshot(path=artifacts / f"kit-preview-{slug}.png", full_page=True)

    # The zip: a README and one script per count that bash accepts.
    with page.expect_download() as info:
        page.get_by_test_id("kit-download").click()
    download = info.value
    kit_zip = tmp_path / download.suggested_filename
    download.save_as(kit_zip)
    logs = io.BytesIO()
    with (
        zipfile.ZipFile(kit_zip) as archive,
        zipfile.ZipFile(logs, "w") as back,
    ):
        scripts = sorted(n for n in archive.namelist() if n.endswith(".sh"))
        assert [re.search(r"scaling_(\d+)gpus\.sh$", n)[1] for n in scripts] == [
            "16",
            "32",
            "8",
        ]
        readme = archive.read(
            next(n for n in archive.namelist() if n.endswith("README.txt"))
        ).decode()
        assert "scaling_<N>gpus_<job id>.log" in readme
        for job_id, name in enumerate(scripts, start=4100):
            text = archive.read(name).decode()
            path = tmp_path / name.rsplit("/", 1)[-1]
            path.write_text(text)
            assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
            assert "train.py --config configs/7b.yaml" in text  # their program
            gpus = int(re.search(r"scaling_(\d+)gpus", name)[1])
            nodes = int(re.search(r"#SBATCH --nodes=(\d+)", text)[1])
            assert nodes == gpus // 4  # 4 GPUs a node (MI250X on LUMI-G, H100)
            # The run's log: named as the script names it, %j the job's id.
            output = re.search(r"#SBATCH --output=(\S+)", text)[1]
            steps = int(re.search(r"export MAX_STEPS=(\d+)", text)[1])
            every = int(re.search(r"export LOG_EVERY=(\d+)", text)[1])
            log_name = output.replace("%j", str(job_id))
            assert log_name == f"scaling_{gpus}gpus_{job_id}.log"
            back.writestr(f"kit-logs/{log_name}", stand_in_log(gpus, steps, every))
    logs_zip = tmp_path / "kit-logs.zip"
    logs_zip.write_bytes(logs.getvalue())

    # Back on the scalability step: the logs, zipped, read and added.
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/scalability/")
    page.wait_for_load_state("load")
    page.get_by_test_id("logs-toggle").click()
    page.get_by_test_id("logs-files").set_input_files(logs_zip)
    page.get_by_test_id("logs-preview-button").click()
    expect(page.get_by_test_id("logs-reading")).to_be_visible()
    run_tasks()
    summary = page.get_by_test_id("logs-summary")
    expect(summary).to_contain_text("3 measurements and 0 job-plan rows to add")
    preview = page.get_by_test_id("logs-measurements")
    for gpus in (8, 16, 32):
        expect(preview).to_contain_text(f"scaling_{gpus}gpus_")
    page.get_by_test_id("logs-add").click()
    expect(page.locator(".messages")).to_contain_text(
        "Added 3 measurements read from the logs"
    )
    table = page.get_by_test_id("measurements-table")
    expect(table.locator("tbody tr[id]")).to_have_count(6)
    counts = table.locator("tbody tr[id] input[name*='gpus']").evaluate_all(
        "inputs => inputs.map(i => i.value)"
    )
    assert sorted(int(c) for c in counts) == [1, 2, 4, 8, 16, 32]
    page.reload()
    page.wait_for_load_state("load")
    expect(page.locator("#live-findings")).not_to_contain_text(MEASURE_CLOSER)
    expect(page.get_by_test_id("kit-link")).to_have_count(0)
    page.screenshot(path=artifacts / f"kit-logs-back-{slug}.png", full_page=True)
    added = ScalingMeasurement.objects.filter(proposal=proposal, source__gt="")
    assert sorted(m.gpus for m in added) == [8, 16, 32]
    per_gpu = {m.gpus: float(m.throughput) / m.gpus for m in added}
    assert per_gpu[8] > per_gpu[16] > per_gpu[32] > 0
    context.close()
