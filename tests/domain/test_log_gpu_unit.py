"""Whether a log counts physical GPUs or GCDs is read from the log where it says
(a device name, ranks per node), and otherwise left to the person to say."""

import pytest

from proposals.domain.training_logs import gpu_unit, read_text

STEPS = "step 1 | 100 tokens/s\nstep 2 | 200 tokens/s\nstep 3 | 200 tokens/s\n"
LUMI = {"gpus_per_node": 4, "gcds_per_gpu": 2}


def unit(text: str, **system) -> str:
    (measurement,) = read_text(text).measurements
    return gpu_unit(measurement, **(system or LUMI))[0]


@pytest.mark.parametrize(
    "line",
    [
        "Device 0: AMD Instinct MI250X (gfx90a:sramecc+:xnack-)",
        "rocm-smi: GPU[0] : Card series: AMD INSTINCT MI250X",
        "using device gfx90a",
    ],
)
def test_a_log_made_on_mi250x_counts_gcds(line):
    assert unit(f"{line}\nworld_size=16\n{STEPS}") == "gcds"


@pytest.mark.parametrize(
    "line",
    [
        "GPU 0: NVIDIA H100 80GB HBM3",
        "device: NVIDIA A100-SXM4-80GB",
        "cuda:0 NVIDIA GH200 480GB",
    ],
)
def test_a_log_naming_another_gpu_counts_physical_gpus(line):
    # 16 ranks: LUMI-G would halve them to 8 GPUs, wrongly.
    assert unit(f"{line}\nworld_size=16\n{STEPS}") == "gpus"


@pytest.mark.parametrize(
    "lines",
    [
        "LOCAL_WORLD_SIZE=8\nworld_size=16",
        "srun --ntasks-per-node=8 python train.py\nworld_size=16",
        "torchrun --nproc_per_node 8 train.py\nworld_size=16",
        "WORLD_SIZE=16 SLURM_NNODES=2",
    ],
)
def test_eight_ranks_per_node_on_a_four_gpu_mi250x_node_are_gcds(lines):
    assert unit(f"{lines}\n{STEPS}") == "gcds"


def test_a_log_that_does_not_say_is_left_to_ask():
    assert unit(f"world_size=16\n{STEPS}") == ""
    # 4 ranks on a 4-GPU node could be 4 GCDs or 4 GPUs: not guessed either.
    assert unit(f"LOCAL_WORLD_SIZE=4\nworld_size=16\n{STEPS}") == ""


def test_a_system_of_one_device_per_gpu_always_counts_gpus():
    assert unit(f"world_size=16\n{STEPS}", gpus_per_node=4, gcds_per_gpu=1) == "gpus"


def test_the_evidence_survives_the_trip_through_the_task_worker():
    from proposals.domain.training_logs import pack, unpack

    (measurement,) = read_text(
        f"GPU 0: NVIDIA H100\nworld_size=16\n{STEPS}"
    ).measurements
    again = unpack(pack(measurement))
    assert (again.device, again.device_line) == ("H100", 1)
    assert "H100 (line 1)" in gpu_unit(again, **LUMI)[1]


def test_sacct_says_it_by_the_gres_type_or_gpus_per_node():
    header = "JobID|JobName|Elapsed|AllocTRES\n"
    lumi = header + "1|train|01:00:00|cpu=448,gres/gpu=64,mem=3840G,node=8\n"
    (job,) = read_text(lumi).jobs
    assert gpu_unit(job, **LUMI)[0] == "gcds"  # 8 per node on a 4-GPU node
    h100 = header + "1|train|01:00:00|gres/gpu:h100=8,gres/gpu=8,node=2\n"
    (job,) = read_text(h100).jobs
    assert gpu_unit(job, **LUMI)[0] == "gpus"
    (job,) = read_text(header + "1|train|01:00:00|gres/gpu=8\n").jobs
    assert gpu_unit(job, **LUMI)[0] == ""
