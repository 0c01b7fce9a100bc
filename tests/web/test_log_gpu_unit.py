"""Log import on a system of several GCDs per GPU (LUMI-G) reads whether a log counts
GPUs or GCDs from the log where it says, and otherwise asks with two stacked radio
buttons (readable on a phone), converting nothing it was not told."""

import re

import pytest

from proposals.models import ScalingMeasurement
from tests.web.test_training_logs import read, url

pytestmark = pytest.mark.django_db

STEPS = "step 1 | 100 tokens/s\nstep 2 | 200 tokens/s\nstep 3 | 200 tokens/s\n"


def added_gpus(client, proposal, text, **choice):
    read(
        client, proposal, run_tasks=client.run_tasks, data={"logs-text": text, **choice}
    )
    client.post(url(proposal), {"logs_add": "1", **choice})
    return sorted(
        ScalingMeasurement.objects.filter(proposal=proposal, source__gt="").values_list(
            "gpus", flat=True
        )
    )


@pytest.fixture
def client(user_client, run_tasks):
    user_client.run_tasks = run_tasks
    return user_client


def test_a_log_from_an_h100_system_keeps_its_gpu_count(client, proposal):
    assert proposal.system.gcds_per_gpu == 2
    text = f"GPU 0: NVIDIA H100 80GB HBM3\nworld_size=16\n{STEPS}"
    assert added_gpus(client, proposal, text) == [16]


def test_a_log_naming_the_mi250x_is_converted_from_gcds(client, proposal):
    text = f"Device 0: AMD Instinct MI250X\nworld_size=16\n{STEPS}"
    assert added_gpus(client, proposal, text) == [8]


def test_eight_ranks_per_node_on_lumi_g_are_gcds(client, proposal):
    text = f"LOCAL_WORLD_SIZE=8\nworld_size=16\n{STEPS}"
    assert added_gpus(client, proposal, text) == [8]


def test_a_log_that_does_not_say_is_asked_about_not_halved(client, proposal):
    text = f"world_size=16\n{STEPS}"
    page = read(
        client, proposal, client.run_tasks, {"logs-text": text}
    ).content.decode()
    assert 'data-testid="logs-count-ask"' in page
    assert "0 measurements" in page
    # Nothing converted, nothing added until the person says.
    client.post(url(proposal), {"logs_add": "1"})
    assert not ScalingMeasurement.objects.filter(proposal=proposal, source__gt="")
    page = client.post(url(proposal), {"logs": "1", "logs-count": "gpus"})
    assert "1 measurement and 0 job-plan rows" in page.content.decode()
    assert added_gpus(client, proposal, text, **{"logs-count": "gpus"}) == [16]


def test_the_choice_is_two_stacked_radio_buttons_not_a_select(client, proposal):
    page = client.get(url(proposal)).content.decode()
    assert '<select class="form-select form-select-sm" id="logs-count"' not in page
    radios = re.findall(
        r'<input class="form-check-input" type="radio" name="logs-count"', page
    )
    assert len(radios) == 2
    assert "GPUs (AMD Instinct MI250X modules)" in page
    assert "GCDs (what Slurm counts" in page
