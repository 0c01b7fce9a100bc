"""The scaling kit (issue 37): the GPU counts still to measure, the budget, and
Slurm scripts that bash (and shellcheck, where installed) accept."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proposals.domain.scaling_kit import (
    COVERED,
    DEFAULT_STEPS,
    LAUNCHERS,
    LOG_EVERY,
    MIN_STEPS,
    NO_TARGET,
    KitError,
    counts_to_measure,
    largest_job_gpus,
    launcher_of,
    minutes_for,
    plan_kit,
    program_of,
    whole_nodes,
)
from proposals.domain.scaling_scripts import render_files, render_script
from proposals.domain.training_logs.results import STEADY_MIN_INTERVALS
from proposals.domain.types import Measurement, targets

from .builders import catalogue, edit, example

COMMAND = "torchrun --nproc-per-node=4 train.py --config 'configs/7b run.yaml'"


def one_node(system: str, target: int = 32, measured: int = 4):
    """A Playground proposal on ``system`` measured up to ``measured`` GPUs (one
    node of four), planning ``target``-GPU jobs."""
    proposal = example("playground")
    rows = tuple(
        Measurement(code=0, gpus=n, throughput=100.0 * n, unit="tokens/s")
        for n in (1, 2, measured)
    )
    codes = (dataclasses.replace(proposal.codes[0], launch_command=COMMAND),)
    return edit(
        proposal,
        selection__system=system,
        selection__max_gpus_per_job=target,
        scalability__measurements=rows,
        codes=codes,
    )


def kit_for(system="lumi-g", **kwargs):
    proposal = one_node(
        system, **{k: kwargs.pop(k) for k in ("target", "measured") if k in kwargs}
    )
    return plan_kit(proposal, catalogue()[system], **kwargs)


def test_lumi_one_node_measured_gives_8_16_32_within_playground():
    kit = kit_for("lumi-g")
    assert kit.counts == (8, 16, 32)
    assert [j.nodes for j in kit.jobs] == [2, 4, 8]
    # Slurm sees each MI250X as two GCDs: 8 "GPUs" per node.
    assert {j.slurm_gpus_per_node for j in kit.jobs} == {8}
    assert [j.minutes for j in kit.jobs] == [30, 30, 30]
    assert kit.total_gpu_hours == pytest.approx((8 + 16 + 32) * 0.5)
    assert kit.playground_limit == 5000
    assert kit.within_playground is True
    assert kit.within_request is True  # 28 of the 2,000 requested


def test_marenostrum_one_node_measured_gives_8_16_32():
    kit = kit_for("marenostrum5-acc")
    assert kit.counts == (8, 16, 32)
    assert {j.slurm_gpus_per_node for j in kit.jobs} == {4}
    script = render_script(kit, kit.jobs[0])
    assert "#SBATCH --qos=acc_ehpc" in script
    assert "#SBATCH --partition=acc" in script


def test_a_target_off_the_ladder_takes_one_point_beyond():
    assert kit_for("lumi-g", target=24).counts == (8, 16, 32)


def test_nothing_missing_when_the_measurements_cover_the_job():
    kit = kit_for("lumi-g", target=4)
    assert kit.jobs == ()
    assert kit.reason == COVERED
    assert "within the measurements" in kit.reason_text


def test_no_planned_job_is_nothing_missing():
    proposal = edit(one_node("lumi-g"), selection__max_gpus_per_job=None)
    proposal = edit(proposal, scalability__jobs=())
    kit = plan_kit(proposal, catalogue()["lumi-g"])
    assert kit.reason == NO_TARGET and kit.jobs == ()


def test_never_above_what_the_system_gives():
    vega = catalogue()["vega-gpu"]  # 60 nodes of 4
    assert largest_job_gpus(vega) == 240
    kit = plan_kit(edit(one_node("vega-gpu"), selection__max_gpus_per_job=1000), vega)
    assert kit.counts == (8, 16, 32, 64, 128, 240)


def test_counts_above_a_node_are_whole_nodes():
    assert counts_to_measure(3, 20, 4, None) == (8, 16, 32)
    assert counts_to_measure(1, 8, 8, None) == (2, 4, 8)  # Karolina: 8 per node
    assert counts_to_measure(0, 16, 4, None) == (4, 8, 16)  # nothing measured


def test_steps_follow_the_log_readers_minimum():
    assert MIN_STEPS == LOG_EVERY * STEADY_MIN_INTERVALS
    assert DEFAULT_STEPS >= MIN_STEPS
    with pytest.raises(KitError):
        kit_for(steps=MIN_STEPS - 1)
    assert kit_for(steps=MIN_STEPS).steps == MIN_STEPS
    assert minutes_for(1000) > minutes_for(100)


@pytest.mark.parametrize(
    ("command", "launcher", "program"),
    [
        (COMMAND, "torchrun", "train.py --config 'configs/7b run.yaml'"),
        ("accelerate launch --num_processes 8 train.py", "accelerate", "train.py"),
        (
            "python -m torch.distributed.run --standalone --nproc_per_node=8 t.py -a 1",
            "torchrun",
            "t.py -a 1",
        ),
        ("deepspeed --num_gpus 8 pre.py --deepspeed ds.json", "deepspeed", None),
        ("python train.py", "srun", "python train.py"),
    ],
)
def test_launcher_and_program_of_a_command(command, launcher, program):
    assert launcher_of(command) == launcher
    expected = program or "pre.py --deepspeed ds.json"
    assert program_of(command) == expected


@given(
    measured=st.integers(0, 4096),
    target=st.integers(1, 20000),
    per_node=st.sampled_from([1, 4, 8]),
    nodes=st.one_of(st.none(), st.integers(1, 3000)),
)
def test_counts_are_doublings_within_the_system(measured, target, per_node, nodes):
    most = nodes * per_node if nodes else None
    counts = counts_to_measure(measured, target, per_node, most)
    assert list(counts) == sorted(set(counts))
    for count in counts:
        assert count > measured
        if most is not None:
            assert count <= most
        if count > per_node:
            assert count % per_node == 0
    # Each count doubles the one before (in whole nodes above one node); only the
    # last may be smaller: the system's largest job, when the doubling is beyond it.
    chain = ([measured] if measured else []) + list(counts)
    for low, high in zip(chain, chain[1:], strict=False):
        doubled = whole_nodes(2 * low, per_node)
        capped = high == counts[-1] and most is not None and high < doubled > most
        assert high == doubled or capped
    if counts and (most is None or most >= 2 * target + per_node):
        assert counts[-1] >= target  # the target is covered
        assert len([c for c in counts if c >= target]) == 1  # one point beyond


@given(
    target=st.integers(5, 4000),
    steps=st.integers(MIN_STEPS, 5000),
    system=st.sampled_from(sorted(targets(catalogue()))),
)
def test_total_is_the_sum_of_gpus_times_hours(target, steps, system):
    kit = kit_for(system, target=target, steps=steps)
    assert kit.total_gpu_hours == pytest.approx(
        sum(j.gpus * j.minutes / 60 for j in kit.jobs)
    )
    most = largest_job_gpus(catalogue()[system])
    assert all(j.gpus <= most for j in kit.jobs)


def _scripts(tmp_path):
    paths = []
    for system in sorted(targets(catalogue())):
        for launcher in LAUNCHERS:
            for command in (COMMAND, ""):
                kit = kit_for(system, target=64, launcher=launcher, command=command)
                for name, text in render_files(kit).items():
                    if name.endswith(".sh"):
                        path = tmp_path / f"{system}-{launcher}-{bool(command)}-{name}"
                        path.write_text(text)
                        paths.append(path)
    return paths


def test_every_script_is_valid_bash(tmp_path):
    paths = _scripts(tmp_path)
    assert len(paths) > 50
    for path in paths:
        result = subprocess.run(["bash", "-n", str(path)], capture_output=True)
        assert result.returncode == 0, (path.name, result.stderr)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="no shellcheck")
def test_every_script_is_shellcheck_clean(tmp_path):
    paths = _scripts(tmp_path)
    result = subprocess.run(
        ["shellcheck", *map(str, paths)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[:3000]


def test_script_asks_slurm_as_the_system_documents():
    kit = kit_for("lumi-g", launcher="srun")
    script = render_script(kit, kit.jobs[0])
    assert "#SBATCH --account=<project>" in script
    assert "#SBATCH --gpus-per-node=8" in script  # GCDs
    assert "#SBATCH --ntasks-per-node=8" in script
    assert "#SBATCH --cpus-per-task=7" in script
    assert "#SBATCH --output=scaling_8gpus_%j.log" in script
    assert "ROCR_VISIBLE_DEVICES=$SLURM_LOCALID" in script
    assert "python train.py --config 'configs/7b run.yaml'" in script
    assert "UNVERIFIED" in script
    assert script.rstrip().splitlines()[-2].startswith("sacct -j")
    # No accounting storage must not fail a run whose log is written.
    assert script.rstrip().endswith('|| echo "sacct: no accounting record" >&2')
    torchrun = render_script(kit_for("lumi-g"), kit_for("lumi-g").jobs[0])
    assert "--nproc-per-node=8" in torchrun and "--ntasks-per-node=1" in torchrun


def test_verified_facts_say_so():
    lumi = dataclasses.replace(
        catalogue()["lumi-g"],
        job_facts_source="LUMI documentation",
        job_facts_checked="2026-12-05",
    )
    kit = plan_kit(one_node("lumi-g"), lumi)
    assert kit.facts_verified
    assert "checked on 2026-12-05" in render_script(kit, kit.jobs[0])


def test_readme_says_budget_and_submit_command():
    readme = render_files(kit_for("lumi-g"))["README.txt"]
    assert 'for s in scaling_*gpus.sh; do sbatch "$s"; done' in readme
    assert "at most 28 GPU-hours in all" in readme
    assert "scaling_32gpus.sh: GPUs 32, nodes 8" in readme


def test_a_file_without_launch_commands_still_imports():
    import json

    from proposals.domain import dumps, loads

    data = json.loads(dumps(one_node("lumi-g")))
    assert data["codes"][0]["launch_command"] == COMMAND
    del data["codes"][0]["launch_command"]
    assert loads(json.dumps(data)).codes[0].launch_command == ""
