"""The log reader's preview refuses a TFLOP/s per GPU above the proposal's system's
GPU peak (issue 36), naming the peak, and adds no row for it."""

import re

import pytest

from tests.domain.test_training_logs import LOGS
from tests.web.test_training_logs import GPUS, read

pytestmark = pytest.mark.django_db


def test_a_figure_above_the_systems_gpu_peak_is_refused_in_the_preview(
    user_client, proposal, run_tasks
):
    assert "MI250X" in proposal.system.gpu_model  # the factory's LUMI-G
    log = (LOGS / "megatron-2024-8gpus.log").read_text()
    text = re.sub(r"(TFLOP/s/GPU\): )[\d.]+", r"\g<1>1246.0", log)
    page = read(
        user_client, proposal, run_tasks, {"logs-text": text, "logs": "1", **GPUS}
    ).content.decode()
    assert "1,246 TFLOP/s per GPU is above the" in page
    assert "peak of 383" in page
    assert "0 measurements and 0 job-plan rows to add" in page
