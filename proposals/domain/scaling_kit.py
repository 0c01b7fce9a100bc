"""The scaling kit: the batch jobs that measure what a proposal's scaling data lacks.

What is missing is what the scaling findings judge (SCAL-5 to SCAL-7): the planned
job size (:func:`.assessment.target_gpus`: the declared maximum GPUs per job, else
the largest job row) above the largest measured GPU count. The kit measures the
doublings from the largest measured count (one node when nothing is measured) up
to the planned size; when the planned size is not itself a doubling, the last
doubling lies one point beyond it, so the fit brackets the target instead of
extrapolating. A count the system cannot give is never planned: above its GPU
nodes (or its largest partition) times the GPUs per node, or not a whole number of
nodes once above one node (it is rounded up to whole nodes).

GPUs are counted as the calls bill them (an MI250X is one GPU on LUMI-G); the
scripts ask Slurm for ``gcds_per_gpu`` times as many (the GCDs Slurm shows).

Each run is ``steps`` steps logged every ``LOG_EVERY`` steps. The training-log
reader takes the median of the logged intervals after the first (the warm-up), so
a run needs at least ``STEADY_MIN_INTERVALS`` intervals; the default logs ten
(one warm-up, nine in the median, so one slow interval, a checkpoint or an
evaluation, cannot move it). The time limit allows ``STARTUP_MINUTES`` for start-up
(modules, container, data loading) plus ``STEP_SECONDS`` per step, times
``MARGIN``, rounded up to ``ROUND_MINUTES``; its GPU-hours (GPUs x time limit, the
most a run can bill) add up to the kit's budget, checked against the Playground
limit and the proposal's own request.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, replace

from .assessment import target_gpus
from .i18n import gettext
from .jobplan import job_plan
from .numbers import grouped
from .scaling import analyse
from .terms import CallTerms, family_terms
from .tiers import INDUSTRIAL, PLAYGROUND
from .training_logs.results import STEADY_MIN_INTERVALS, WARMUP_INTERVALS
from .types import Cluster, Proposal

LAUNCHERS = ("torchrun", "srun", "deepspeed", "accelerate")
# Launcher options that take no value (the others take one, "--opt=v" or "--opt v").
SWITCHES = frozenset(
    ("--standalone", "--multi_gpu", "--use_deepspeed", "--use_fsdp", "--no_python")
)
LOG_EVERY = 10  # steps per logged interval
STEADY_INTERVALS = 9  # intervals in the median: robust to one slow interval
DEFAULT_STEPS = LOG_EVERY * (WARMUP_INTERVALS + STEADY_INTERVALS)
MIN_STEPS = LOG_EVERY * STEADY_MIN_INTERVALS
MAX_STEPS = 100_000
STARTUP_MINUTES = 10
STEP_SECONDS = 6.0  # assumed for a large model's step when nothing says otherwise
MARGIN = 1.5
ROUND_MINUTES = 15  # quarter hours: the GPU-hours stay exact decimals

# Why a kit has no job (``Kit.reason``), shown translated by ``Kit.reason_text``.
NO_SYSTEM = "no_system"
NO_TARGET = "no_target"
COVERED = "covered"
TOO_BIG = "too_big"


# A kit log's name carries its GPU count as the calls bill them (KitJob.name).
KIT_NAME = re.compile(r"scaling_([0-9]{1,7})gpus(?![0-9])")


def kit_gpus(file: str) -> int:
    """The GPU count in the name of a kit's log (0 for another file's name)."""
    found = KIT_NAME.findall(file.rsplit("/", 1)[-1])
    return int(found[-1]) if found else 0


class KitError(ValueError):
    """The kit cannot be made (the message says what is missing)."""


@dataclass(frozen=True)
class KitJob:
    """One script: a run at ``gpus`` billed GPUs on ``nodes`` nodes."""

    gpus: int
    nodes: int
    slurm_gpus_per_node: int  # GPUs as Slurm counts them (GCDs on LUMI-G)
    partition: str
    minutes: int  # the time limit

    @property
    def hours(self) -> float:
        return self.minutes / 60

    @property
    def gpu_hours(self) -> float:
        return self.gpus * self.hours

    @property
    def name(self) -> str:
        """The file stem; the GPU count in it is what matches a log back."""
        return f"scaling_{self.gpus}gpus"

    @property
    def script(self) -> str:
        return f"{self.name}.sh"

    @property
    def time_limit(self) -> str:
        """Slurm's ``--time`` (hours:minutes:seconds)."""
        return f"{self.minutes // 60:02d}:{self.minutes % 60:02d}:00"


@dataclass(frozen=True)
class Kit:
    """The jobs to run and what they cost; ``reason`` says why there are none."""

    system: Cluster | None
    jobs: tuple[KitJob, ...]
    steps: int
    launcher: str
    command: str
    largest_measured: int
    target: int | None
    playground_limit: float | None
    requested: float | None
    reason: str = ""

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(job.gpus for job in self.jobs)

    @property
    def total_gpu_hours(self) -> float:
        return sum(job.gpu_hours for job in self.jobs)

    @property
    def slurm_gpus_per_node(self) -> int | None:
        """A whole node's GPUs as Slurm counts them (8 GCDs on a LUMI-G node)."""
        if self.system is None:
            return None
        return self.system.gpus_per_node * self.system.gcds_per_gpu

    @property
    def within_playground(self) -> bool | None:
        if self.playground_limit is None:
            return None
        return self.total_gpu_hours <= self.playground_limit

    @property
    def within_request(self) -> bool | None:
        if not self.requested:
            return None
        return self.total_gpu_hours <= self.requested

    @property
    def facts_verified(self) -> bool:
        """Whether the system's job facts have a checked date and a source that
        does not say "Unverified"."""
        s = self.system
        return bool(
            s
            and s.job_facts_checked
            and s.job_facts_source
            and not s.job_facts_source.lower().startswith("unverified")
        )

    @property
    def reason_text(self) -> str:
        """Why nothing is to be measured, in the active language ("" with jobs)."""
        if self.reason == NO_SYSTEM:
            return gettext("Choose a target system: the scripts are written for it.")
        if self.reason == NO_TARGET:
            return gettext(
                "Nothing is missing: no job size is planned (give the maximum GPUs "
                "per job or a job plan)."
            )
        if self.reason == COVERED:
            return gettext(
                "Nothing is missing: the largest planned job, {target} GPUs, is "
                "within the measurements (up to {measured} GPUs)."
            ).format(target=grouped(self.target, 0), measured=self.largest_measured)
        if self.reason == TOO_BIG:
            return gettext(
                "{system} cannot give a job more GPUs than are measured already."
            ).format(system=self.system.name if self.system else "")
        return ""


def minutes_for(steps: int, step_seconds: float = STEP_SECONDS) -> int:
    """The time limit of a ``steps``-step run, with start-up and margin."""
    raw = (STARTUP_MINUTES + steps * step_seconds / 60) * MARGIN
    return max(ROUND_MINUTES, math.ceil(raw / ROUND_MINUTES) * ROUND_MINUTES)


def largest_job_gpus(cluster: Cluster) -> int | None:
    """The most billed GPUs one job can have on ``cluster`` (``None``: unknown): its
    GPU nodes or its largest partition's node limit, whichever is smaller."""
    limits = []
    partitions = cluster.partitions
    node_limits = [p.max_nodes for p in partitions if p.max_nodes]
    if partitions and len(node_limits) == len(partitions):  # each has a limit
        limits.append(max(node_limits))
    if cluster.gpu_nodes:
        limits.append(cluster.gpu_nodes)
    return min(limits) * cluster.gpus_per_node if limits else None


def whole_nodes(gpus: int, per_node: int) -> int:
    """``gpus`` rounded up to whole nodes once above one node."""
    if gpus <= per_node:
        return gpus
    return math.ceil(gpus / per_node) * per_node


def counts_to_measure(
    largest_measured: int, target: int | None, per_node: int, most: int | None
) -> tuple[int, ...]:
    """The GPU counts still to measure (see the module's docstring); ``most`` is
    the largest job the system gives (``None``: unknown)."""
    if not target or target <= largest_measured:
        return ()
    counts: list[int] = []
    current = largest_measured
    if current <= 0:
        current = whole_nodes(min(per_node, target), per_node)
        counts.append(current)
    while current < target:
        current = whole_nodes(current * 2, per_node)
        if most is not None and current > most:
            # The planned size or, above it, the largest job the system gives.
            last = min(whole_nodes(target, per_node), most)
            if last > max(counts, default=largest_measured):
                counts.append(last)
            break
        counts.append(current)
    return tuple(c for c in counts if most is None or c <= most)


def partition_for(cluster: Cluster, nodes: int, hours: float):
    """The default partition when it takes the job, else the first that does."""
    fits = [
        p
        for p in cluster.partitions
        if (p.max_nodes is None or nodes <= p.max_nodes)
        and (p.max_walltime_hours is None or hours <= p.max_walltime_hours)
    ]
    default = [p for p in fits if p.name == cluster.default_partition]
    chosen = next(iter(default or fits), None)
    return chosen.name if chosen else cluster.default_partition


def launcher_of(command: str) -> str:
    """The launcher a command starts with (``srun`` when it names none)."""
    words = command.split()
    if not words:
        return "srun"
    first = words[0].rsplit("/", 1)[-1]
    if first in LAUNCHERS:
        return first
    if first.startswith("python") and words[1:3] == ["-m", "torch.distributed.run"]:
        return "torchrun"
    return "srun"


def program_of(command: str) -> str:
    """The command without its launcher and the launcher's options: the kit puts
    its own launcher, sized for each GPU count, in front of what is left."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if not words:
        return ""
    first = words[0].rsplit("/", 1)[-1]
    if first.startswith("python") and words[1:3] == ["-m", "torch.distributed.run"]:
        words = words[3:]
    elif first in LAUNCHERS:
        words = words[1:]
        if first == "accelerate" and words[:1] == ["launch"]:
            words = words[1:]
    else:
        return shlex.join(words)
    while words and words[0].startswith("-"):
        option = words.pop(0)
        takes_value = "=" not in option and option not in SWITCHES
        value = words[0] if words else ""
        is_value = value and not value.startswith("-") and not value.endswith(".py")
        if takes_value and is_value:
            words.pop(0)
    return shlex.join(words)


def plan_kit(
    proposal: Proposal,
    cluster: Cluster | None,
    *,
    terms: CallTerms | None = None,
    launcher: str | None = None,
    command: str | None = None,
    steps: int = DEFAULT_STEPS,
) -> Kit:
    """The kit for ``proposal`` on ``cluster``; ``launcher`` and ``command`` replace
    the code entry's (the main code's launch command, else the first one given).
    Raises :class:`KitError` for steps outside ``MIN_STEPS``..``MAX_STEPS`` or an
    unknown launcher."""
    if not MIN_STEPS <= steps <= MAX_STEPS:
        raise KitError(
            gettext(
                "Give between {low} and {high} steps: the log reader needs {n} "
                "logged intervals of {every} steps."
            ).format(
                low=grouped(MIN_STEPS, 0),
                high=grouped(MAX_STEPS, 0),
                n=STEADY_MIN_INTERVALS,
                every=LOG_EVERY,
            )
        )
    if command is None:
        command = launch_command_of(proposal)
    launcher = launcher or launcher_of(command)
    if launcher not in LAUNCHERS:
        raise KitError(gettext("Unknown launcher {name}.").format(name=launcher))
    plan = job_plan(proposal.scalability.jobs, cluster)
    target = target_gpus(proposal, plan)
    analysis = analyse(proposal.scalability.measurements)
    largest = max((p.gpus for p in analysis.points), default=0)
    playground = family_terms(terms, INDUSTRIAL).mode(PLAYGROUND)
    kit = Kit(
        system=cluster,
        jobs=(),
        steps=steps,
        launcher=launcher,
        command=command,
        largest_measured=largest,
        target=target,
        playground_limit=playground.max_hours if playground else None,
        requested=proposal.selection.total_gpu_hours,
    )
    if cluster is None:
        return _with(kit, reason=NO_SYSTEM)
    if not target:
        return _with(kit, reason=NO_TARGET)
    if target <= largest:
        return _with(kit, reason=COVERED)
    per_node = cluster.gpus_per_node
    counts = counts_to_measure(largest, target, per_node, largest_job_gpus(cluster))
    if not counts:
        return _with(kit, reason=TOO_BIG)
    minutes = minutes_for(steps)
    jobs = []
    for gpus in counts:
        nodes = max(1, math.ceil(gpus / per_node))
        jobs.append(
            KitJob(
                gpus=gpus,
                nodes=nodes,
                slurm_gpus_per_node=min(gpus, per_node) * cluster.gcds_per_gpu,
                partition=partition_for(cluster, nodes, minutes / 60),
                minutes=minutes,
            )
        )
    return _with(kit, jobs=tuple(jobs))


def launch_command_of(proposal: Proposal) -> str:
    """The main code's launch command, else the first code entry's that has one."""
    codes = sorted(proposal.codes, key=lambda c: c.role != "main")
    return next((c.launch_command.strip() for c in codes if c.launch_command), "")


def _with(kit: Kit, **changes) -> Kit:
    return replace(kit, **changes)
