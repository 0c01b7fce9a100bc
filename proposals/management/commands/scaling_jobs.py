"""``manage.py scaling_jobs FILE`` — write the scaling kit of a proposal file.

The kit (issue 37, ``proposals.domain.scaling_kit``): one Slurm script per GPU count
the proposal's measurements still lack, on its target system (or ``--system``), and
a README, written into ``--out DIR``; the plan is printed (``--format json``:
``{"system", "jobs": [{"gpus", "nodes", "hours", "script"}], "total_gpu_hours"}``,
GPUs as the calls bill them, hours the script's time limit, scripts relative to
DIR).

Exit status: 0 when a kit was written or nothing is missing (no job; the text, or
stderr with ``--format json``, says why); 2 when the file cannot be read, the system
is unknown or not given, the steps are out of range, or there is no command to run
(neither a code entry's launch command nor ``--command``).
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from proposals.domain import numbers
from proposals.domain.scaling_kit import DEFAULT_STEPS, LAUNCHERS, KitError, plan_kit
from proposals.domain.scaling_scripts import render_files, submit_all
from proposals.domain.types import targets

from .assess import Command as AssessCommand
from .assess import read_proposal


class Command(BaseCommand):
    requires_system_checks = []  # a file tool: needs the catalogue, not the URLs
    help = (
        "Write Slurm scripts (and a README) that measure the GPU counts a proposal's "
        "scaling data still lacks, and print their plan and GPU-hours. Exits 0 when "
        "a kit was written or nothing is missing, 2 for an unusable file or no "
        "command to run."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="proposal JSON file, or - for stdin")
        parser.add_argument("--system", help="catalogue slug (default: the file's)")
        parser.add_argument(
            "--launcher",
            choices=LAUNCHERS,
            help="default: the launch command's first word (srun when none)",
        )
        parser.add_argument(
            "--command",
            dest="run_command",
            help="the command to run (default: the main code entry's launch command)",
        )
        parser.add_argument("--steps", type=int, default=DEFAULT_STEPS)
        parser.add_argument("--out", required=True, help="directory to write into")
        parser.add_argument(
            "--format",
            choices=["text", "json"],
            default="text",
            dest="output_format",
        )

    def handle(
        self,
        *args,
        file,
        system,
        launcher,
        run_command,
        steps,
        out,
        output_format,
        **options,
    ):
        catalogue, terms, _, _ = AssessCommand.data(self)
        # Only a system in production is a target (the others have no figures).
        catalogue = targets(catalogue)
        proposal = read_proposal(self, file, systems={s: None for s in catalogue})
        slug = system or proposal.selection.system
        if not slug:
            self.fail("No target system: the file names none; give --system SLUG.")
        if slug not in catalogue:
            known = ", ".join(sorted(catalogue))
            self.fail(f"Unknown system {slug!r} (known: {known}).")
        try:
            kit = plan_kit(
                proposal,
                catalogue[slug],
                terms=terms,
                launcher=launcher,
                command=run_command,
                steps=steps,
            )
        except KitError as exc:
            self.fail(str(exc))
        if kit.jobs and not kit.command:
            self.fail(
                "No command to run: no code entry has a launch command "
                '(codes[].launch_command); give --command "...".'
            )
        written = []
        if kit.jobs:
            directory = Path(out)
            directory.mkdir(parents=True, exist_ok=True)
            for name, text in render_files(kit).items():
                path = directory / name
                path.write_text(text, encoding="utf-8")
                if name.endswith(".sh"):
                    path.chmod(0o755)
                written.append(name)
        if output_format == "json":
            self.stdout.write(json.dumps(self.as_json(slug, kit), indent=2))
            if not kit.jobs:
                self.stderr.write(kit.reason_text)
        else:
            self.stdout.write(self.as_text(slug, kit, out, written), ending="")

    def fail(self, message: str):
        self.stderr.write(message)
        raise SystemExit(2)

    @staticmethod
    def as_json(slug, kit) -> dict:
        return {
            "system": slug,
            "jobs": [
                {
                    "gpus": job.gpus,
                    "nodes": job.nodes,
                    "hours": job.hours,
                    "script": job.script,
                }
                for job in kit.jobs
            ],
            "total_gpu_hours": kit.total_gpu_hours,
        }

    @staticmethod
    def as_text(slug, kit, out, written) -> str:
        name = kit.system.name
        if not kit.jobs:
            return f"System: {name} ({slug})\nNo job to write. {kit.reason_text}\n"
        g = numbers.grouped
        lines = [
            f"System: {name} ({slug}); launcher {kit.launcher}; {kit.steps} steps "
            "per run",
            f"{'GPUs':>6} {'nodes':>6} {'time limit':>10} {'GPU-hours':>10}  script",
        ]
        for job in kit.jobs:
            lines.append(
                f"{job.gpus:>6} {job.nodes:>6} {job.time_limit:>10} "
                f"{g(job.gpu_hours, 2, trim=True):>10}  {job.script}"
            )
        lines.append(
            f"Total: {g(kit.total_gpu_hours, 2, trim=True)} GPU-hours (Playground "
            f"limit {g(kit.playground_limit, 0)}; requested {g(kit.requested, 0)})"
        )
        if kit.within_playground is False:
            lines.append("The kit is above the Playground limit.")
        if kit.within_request is False:
            lines.append("The kit is above the GPU-hours the proposal requests.")
        if not kit.facts_verified:
            lines.append(f"{name}'s job facts are unverified: check them first.")
        lines.append(f"Wrote {len(written)} files to {out}. Submit all with:")
        lines.append(f"  cd {out} && {submit_all(kit)}")
        return "\n".join(lines) + "\n"
