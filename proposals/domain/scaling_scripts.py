"""The scaling kit's files: one Slurm script per GPU count and a README.

The scripts' text lives here, in ``string.Template`` templates, and nowhere else;
the system's facts (partition, QoS, GPUs and cores per node, CPU binding, how
Slurm counts GPUs) come from the catalogue entry, with its source. Each script
writes a log whose name carries the GPU count (``scaling_<N>gpus_<job id>.log``,
what the training-log upload matches back), then the job's ``sacct`` record
beside it. Module loads and the container are placeholders the applicant fills.
"""

from __future__ import annotations

import shlex
from string import Template

from .i18n import gettext
from .numbers import grouped
from .scaling_kit import LOG_EVERY, Kit, KitJob, program_of

PLACEHOLDER = "python train.py  # FILL IN: your training command"

HEADER = Template(
    """#!/bin/bash
# Scaling kit for $system: $gpus GPU(s) as the call bills them, on $nodes node(s).
# Measures the throughput of $steps steps (logged every $log_every) at $gpus GPUs.
# System facts: $facts_status
# Source: $source
#SBATCH --job-name=$name
#SBATCH --account=<project>
#SBATCH --partition=$partition
$qos_line#SBATCH --nodes=$nodes
#SBATCH --gpus-per-node=$slurm_gpus
#SBATCH --ntasks-per-node=$tasks
#SBATCH --cpus-per-task=$cpus
#SBATCH --time=$time_limit
#SBATCH --output=${name}_%j.log
set -euo pipefail

# FILL IN: the software environment, as the system's documentation says.
# module load <modules>
# CONTAINER=<path/to/image.sif>  # then put: singularity exec "$$CONTAINER" before the program

# The run's length: make your command stop after MAX_STEPS steps and log every
# LOG_EVERY steps (for example --max-steps "$$MAX_STEPS" --log-interval "$$LOG_EVERY").
export MAX_STEPS=$steps
export LOG_EVERY=$log_every
export KIT_GPUS=$gpus
MASTER_ADDR=$$(scontrol show hostnames "$$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_ADDR
export MASTER_PORT=29500
export OMP_NUM_THREADS=$threads
echo "scaling kit: $gpus GPUs ($slurm_total Slurm GPUs) on $$SLURM_JOB_NUM_NODES nodes"
"""
)

LAUNCH = {
    # One task per Slurm GPU; the program reads its rank from Slurm.
    "srun": Template("srun $bind$wrapper$program\n"),
    # One task per node, torchrun starts one process per Slurm GPU.
    "torchrun": Template(
        'srun torchrun --nnodes="$$SLURM_JOB_NUM_NODES" --nproc-per-node=$per_node '
        '--rdzv-id="$$SLURM_JOB_ID" --rdzv-backend=c10d '
        '--rdzv-endpoint="$$MASTER_ADDR:$$MASTER_PORT" $program\n'
    ),
    # The inner command is expanded on each node (its node id): single quotes.
    "accelerate": Template("# shellcheck disable=SC2016\nsrun bash -c $inner\n"),
    # DeepSpeed's launcher starts the tasks itself through Slurm.
    "deepspeed": Template(
        'HOSTFILE="hostfile_$$SLURM_JOB_ID"\n'
        'scontrol show hostnames "$$SLURM_JOB_NODELIST" | '
        "sed 's/$$/ slots=$per_node/' > \"$$HOSTFILE\"\n"
        'deepspeed --hostfile="$$HOSTFILE" --launcher=slurm '
        '--num_nodes="$$SLURM_JOB_NUM_NODES" --num_gpus=$per_node '
        '--master_addr="$$MASTER_ADDR" --master_port="$$MASTER_PORT" $program\n'
    ),
}

ACCELERATE = Template(
    'accelerate launch --num_machines "$$SLURM_JOB_NUM_NODES" '
    '--num_processes "$$((SLURM_JOB_NUM_NODES * $per_node))" '
    '--machine_rank "$$SLURM_NODEID" --main_process_ip "$$MASTER_ADDR" '
    '--main_process_port "$$MASTER_PORT" $program'
)

# LUMI-G's way to give each task its own GCD (LUMI documentation, "GPU binding").
GCD_WRAPPER = """cat << 'EOF' > select_gpu
#!/bin/bash
export ROCR_VISIBLE_DEVICES=$SLURM_LOCALID
exec "$@"
EOF
chmod +x ./select_gpu
"""

FOOTER = Template(
    """
# The accounting record (the reader takes Elapsed and AllocTRES from it).
# A cluster without accounting storage has none: the run's log still counts.
sacct -j "$$SLURM_JOB_ID" -P --format=JobID,JobName,Elapsed,AllocTRES,State \\
  > "${name}_$${SLURM_JOB_ID}.sacct" || echo "sacct: no accounting record" >&2
"""
)


def tasks_per_node(kit: Kit, job: KitJob) -> int:
    """srun: one task per Slurm GPU; the other launchers: one per node."""
    return job.slurm_gpus_per_node if kit.launcher == "srun" else 1


def render_script(kit: Kit, job: KitJob) -> str:
    """The Slurm script of ``job``."""
    system = kit.system
    assert system is not None  # a kit without a system has no jobs
    cores = system.cores_per_task or 1
    tasks = tasks_per_node(kit, job)
    cpus = (
        cores
        if tasks > 1 or job.slurm_gpus_per_node == 1
        else (cores * job.slurm_gpus_per_node)
    )
    facts = (
        f"checked on {system.job_facts_checked}"
        if kit.facts_verified
        else "UNVERIFIED: check partition, QoS, cores and binding in the system's "
        "documentation before submitting"
    )
    text = HEADER.substitute(
        system=system.name,
        gpus=job.gpus,
        nodes=job.nodes,
        steps=kit.steps,
        log_every=LOG_EVERY,
        facts_status=facts,
        source=system.job_facts_source or system.source_url or "none recorded",
        name=job.name,
        partition=job.partition,
        qos_line=f"#SBATCH --qos={system.qos}\n" if system.qos else "",
        slurm_gpus=job.slurm_gpus_per_node,
        slurm_total=job.slurm_gpus_per_node * job.nodes,
        tasks=tasks,
        cpus=cpus,
        threads=cores,
        time_limit=job.time_limit,
    )
    program = program_of(kit.command) if kit.command else PLACEHOLDER
    if kit.launcher == "srun" and program.split(" ", 1)[0].endswith(".py"):
        program = "python " + program  # the launcher ran the script; srun does not
    values = {"program": program, "per_node": job.slurm_gpus_per_node}
    if kit.launcher == "srun":
        gcds = system.gcds_per_gpu > 1
        bind = f"--cpu-bind={system.cpu_bind} " if system.cpu_bind else ""
        values.update(bind=bind, wrapper="./select_gpu " if gcds else "")
        if gcds:
            text += "\n" + GCD_WRAPPER
    if kit.launcher == "accelerate":
        values["inner"] = shlex.quote(ACCELERATE.substitute(values))
    text += "\n" + LAUNCH[kit.launcher].substitute(values)
    return text + FOOTER.substitute(name=job.name)


def submit_all(kit: Kit) -> str:
    """One command that submits every script of the kit."""
    return 'for s in scaling_*gpus.sh; do sbatch "$s"; done'


def measured_text(kit: Kit) -> str:
    """What the kit measures, in the active language."""
    if not kit.largest_measured:
        return gettext(
            "These scripts measure the throughput your proposal still lacks: from one "
            "node up to your largest planned job ({target} GPUs); there is no "
            "measurement yet."
        ).format(target=grouped(kit.target, 0))
    return gettext(
        "These scripts measure the throughput your proposal still lacks: the GPU "
        "counts between your largest measurement ({measured} GPUs) and your "
        "largest planned job ({target} GPUs)."
    ).format(measured=grouped(kit.largest_measured, 0), target=grouped(kit.target, 0))


def render_readme(kit: Kit) -> str:
    """The kit's README, in the active language."""
    system = kit.system
    assert system is not None  # rendered for a kit with jobs, which has a system
    lines = [
        gettext("Scaling kit for {system}").format(system=system.name),
        "",
        measured_text(kit),
        "",
    ]
    for job in kit.jobs:
        lines.append(
            gettext(
                "{script}: GPUs {gpus}, nodes {nodes}, time limit {limit}, at most "
                "{hours} GPU-hours."
            ).format(
                script=job.script,
                gpus=job.gpus,
                nodes=job.nodes,
                limit=job.time_limit,
                hours=grouped(job.gpu_hours, 1),
            )
        )
    lines += [
        "",
        gettext(
            "Each run is {steps} steps, logged every {every} steps: the log reader "
            "leaves out the first logged interval (the warm-up) and takes the median "
            "of the others."
        ).format(steps=kit.steps, every=LOG_EVERY),
        "",
        gettext(
            "Before submitting: put your project for <project>, fill in the module "
            "or container lines, and make your command honour MAX_STEPS and "
            "LOG_EVERY."
        ),
        "",
        gettext("Submit all scripts with one command:"),
        "    " + submit_all(kit),
        "",
        gettext(
            "Send back the files scaling_<N>gpus_<job id>.log: upload them, or a zip "
            "or tar of them, in “Add measurements from training logs” on the "
            "scalability step; a log that states no GPU count takes the one in its "
            "name. The .sacct files are for your own records."
        ),
        "",
        gettext(
            "Budget: at most {total} GPU-hours in all (the Playground limit is {limit}; "
            "your request is {requested})."
        ).format(
            total=grouped(kit.total_gpu_hours, 1),
            limit=grouped(kit.playground_limit, 0),
            requested=grouped(kit.requested, 0),
        ),
    ]
    if not kit.facts_verified:
        lines += [
            "",
            gettext(
                "The system's job facts are not verified: check the partition, QoS, "
                "cores per GPU and binding in its documentation ({source})."
            ).format(source=system.job_facts_source or system.source_url),
        ]
    return "\n".join(lines) + "\n"


def render_files(kit: Kit) -> dict[str, str]:
    """Every file of the kit by name: the scripts and README.txt."""
    files = {job.script: render_script(kit, job) for job in kit.jobs}
    if kit.jobs:
        files["README.txt"] = render_readme(kit)
    return files
