"""Megatron-LM, torchtitan and DeepSpeed logs."""

from __future__ import annotations

import re

from .lines import Reader, Series, cited
from .results import (
    NUMBER,
    SAMPLES,
    TOKENS,
    Citation,
    Measurement,
    figure,
    line_ranges,
    positive_int,
    to_float,
    whole_word,
)

# "  world_size ...... 8", also behind a timestamp or srun's "0: " label.
_MEGATRON_ARG = re.compile(r" \.{3,}+ (\S++)\s*+$")
# The name before the dots, read backwards from them (a match at the start of the
# reversed text: no search along the line): letters, then the start or a separator.
_MEGATRON_NAME = re.compile(r"\A([a-z_0-9]++)(?:$|[\s:\]])")
_MEGATRON_ITER = re.compile(
    whole_word("iteration") + r"\s++(\d++)\s*+/\s*+(?:\d++|infinity)\s*+\|"
)
_MEGATRON_MS = re.compile(r"elapsed time per iteration \(ms\):\s*+(" + NUMBER + ")")
_MEGATRON_GBS = re.compile(r"global batch size:\s*+(\d++)")
_MEGATRON_TFLOPS = re.compile(
    r"throughput per GPU \(TFLOP/s/GPU\):\s*+(" + NUMBER + ")"
)


class Megatron(Reader):
    name = "Megatron-LM"
    triggers = ("-- arguments --", "_size", "seq_length", "elapsed time per iteration")

    def __init__(self, unread):
        super().__init__(unread)
        self.args: dict[str, tuple[str, int]] = {}
        self.series = Series()
        # Earlier runs of the same file (each starts with its arguments block).
        self.runs: list[tuple[dict, Series]] = []

    def feed(self, number, line):
        if "-- arguments --" in line:
            if self.series:
                self.runs.append((self.args, self.series))
                self.args, self.series = {}, Series()
            return
        if "...." in line and ("_size" in line or "seq_length" in line):
            match = _MEGATRON_ARG.search(line)
            name = (
                match
                and match.start()
                and _MEGATRON_NAME.match(line[match.start() - 1 :: -1])
            )
            if match and name and name.group(1)[::-1] not in self.args:
                self.args[name.group(1)[::-1]] = (match.group(1), number)
            return
        if "elapsed time per iteration" not in line:
            return
        self.seen = True
        ms = _MEGATRON_MS.search(line)
        gbs = _MEGATRON_GBS.search(line)
        if not (_MEGATRON_ITER.search(line) and ms):
            self.unread.add(number)
            return
        elapsed = to_float(ms.group(1))
        batch = (
            positive_int(gbs.group(1)) if gbs else self._arg_int("global_batch_size")
        )
        if not elapsed or elapsed <= 0 or not batch:
            self.unread.add(number)
            return
        tflops = _MEGATRON_TFLOPS.search(line)
        self.series.add(
            batch / (elapsed / 1000),
            number,
            line,
            ms=elapsed,
            batch=batch,
            tflops=to_float(tflops.group(1)) if tflops else None,
        )

    def _arg_int(self, name: str, args: dict | None = None) -> int | None:
        args = self.args if args is None else args
        if name not in args:
            return None
        return positive_int(args[name][0])

    def has_data(self) -> bool:
        return bool(self.series or self.runs)

    def measurements(self, file, gpus):
        """One measurement per run the file holds."""
        runs = [*self.runs, (self.args, self.series)]
        return [
            self._measure(args, series, file, gpus) for args, series in runs if series
        ]

    def _measure(self, args: dict, series: Series, file: str, gpus) -> Measurement:
        notes: list[str] = []
        stated = None
        if world_size := self._arg_int("world_size", args):
            stated = (world_size, args["world_size"][1], "world_size")
        count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
        samples, lines, warmup = series.steady()
        seq = self._arg_int("seq_length", args)
        ms = series.steady_extra("ms")
        batch = series.steady_extra("batch")
        if seq:
            throughput, unit = samples * seq, TOKENS
            formula = (
                f"median over {len(lines)} interval(s) of global batch size × "
                f"seq_length {seq} (line {args['seq_length'][1]}) / elapsed "
                f"time per iteration = {figure(batch or 0)} × {seq} / "
                f"{figure(ms or 0)} ms ≈ {figure(throughput)} tokens/s"
            )
            extra: tuple[int, ...] = (args["seq_length"][1],)
        else:
            throughput, unit = samples, SAMPLES
            formula = (
                f"median over {len(lines)} interval(s) of global batch size / "
                f"elapsed time per iteration ≈ {figure(throughput)} samples/s "
                "(no seq_length in the arguments, so samples, not tokens)"
            )
            extra = ()
        if count:
            formula += f"; GPUs: {gpus_from}"
        tflops = series.steady_extra("tflops")
        if tflops is not None:
            formula += f"; TFLOP/s per GPU (median) {figure(tflops)}"
        return Measurement(
            format=self.name,
            gpus=count,
            throughput=throughput,
            unit=unit,
            gpus_from=gpus_from,
            tflops_per_gpu=tflops,
            source=Citation(
                file=file,
                lines=cited(gpu_lines + extra, lines),
                formula=formula,
                excerpt=series.excerpt_lines(),
                left_out=(warmup, *notes),
            ),
        )


# The step, then (searched from its end: one pass over the line, however many
# "step:" it holds) the throughput.
_TITAN_STEP = re.compile(whole_word("step:") + r"\s*+(\d++)\b")
_TITAN_TPS = re.compile("(" + whole_word("tps", "wps") + r"):\s*+(" + NUMBER + ")")
_TITAN_TFLOPS = re.compile(whole_word("tflops:") + r"\s*+(" + NUMBER + ")")
_TITAN_MFU = re.compile(whole_word("mfu:") + r"\s*+(" + NUMBER + ")%")
# The validator's lines ("validate step: 500 ... tps: 21,873", forks' "evaluation:
# step: ...") count forward passes only: not training throughput.
_TITAN_VALIDATION = re.compile(whole_word("validate step:", r"evaluation:\s"))
# torchrun's prefix: on several nodes (``--local-ranks-filter 0`` on each, as
# torchtitan's Slurm script runs it) every node's first rank logs the same steps.
_TITAN_RANK = re.compile(r"^\s*\[rank(\d+)\]:")
_TITAN_MESH = re.compile(
    r"Building (\d)-D device mesh with (?:\[[^\][]*+\]|\([^()]*+\)), \[([\d, ]++)\]"
)


class Torchtitan(Reader):
    name = "torchtitan"
    triggers = ("device mesh", "step:")

    def __init__(self, unread):
        super().__init__(unread)
        self.series = Series()
        self.mesh: tuple[int, int, str] | None = None
        self.key = "tps"
        self.validation: list[int] = []
        self.rank: str | None = None
        self.other_ranks: set[str] = set()

    def feed(self, number, line):
        if "device mesh" in line:
            match = _TITAN_MESH.search(line)
            if match and self.mesh is None:
                read = [positive_int(s) for s in match.group(2).split(",")]
                sizes = [size for size in read if size]
                if read and len(sizes) == len(read):  # every size read
                    product = 1
                    for size in sizes:
                        product *= size
                    self.mesh = (product, number, "device mesh size")
            return
        if "step:" not in line or not ("tps:" in line or "wps:" in line):
            return
        if _TITAN_VALIDATION.search(line):
            if len(self.validation) < 1000:
                self.validation.append(number)
            return
        self.seen = True
        rank = _TITAN_RANK.match(line)
        if rank:
            if self.rank is None:
                self.rank = rank.group(1)
            elif rank.group(1) != self.rank:
                if len(self.other_ranks) < 1000:
                    self.other_ranks.add(rank.group(1))
                return
        step = _TITAN_STEP.search(line)
        match = _TITAN_TPS.search(line, step.end()) if step else None
        value = to_float(match.group(2)) if match else None
        if match is None or value is None or value <= 0:
            self.unread.add(number)
            return
        self.key = match.group(1)
        tflops = _TITAN_TFLOPS.search(line)
        mfu = _TITAN_MFU.search(line)
        self.series.add(
            value,
            number,
            line,
            tflops=to_float(tflops.group(1)) if tflops else None,
            mfu=to_float(mfu.group(1)) if mfu else None,
        )

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        count, gpus_from, gpu_lines = self._gpus(self.mesh, gpus, notes)
        if self.validation:
            notes.append(
                f"validation step lines ({line_ranges(tuple(self.validation))}): "
                "forward passes only, not training throughput"
            )
        if self.other_ranks:
            ranks = ", ".join(sorted(self.other_ranks, key=int)[:5])
            notes.append(
                f"the step lines of rank(s) {ranks}"
                f"{' …' if len(self.other_ranks) > 5 else ''}: the same steps, "
                f"logged on other nodes; those of rank {self.rank} are used"
            )
        per_gpu, lines, warmup = self.series.steady()
        formula = (
            f"median over {len(lines)} step line(s) of {self.key} "
            f"(tokens per second per GPU) = {figure(per_gpu)}"
        )
        if count:
            formula += (
                f" × {count} GPUs ({gpus_from}) ≈ {figure(per_gpu * count)} tokens/s"
            )
        tflops = self.series.steady_extra("tflops")
        mfu = self.series.steady_extra("mfu")
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=per_gpu * count if count else None,
                unit=TOKENS,
                per_gpu=per_gpu,
                gpus_from=gpus_from,
                tflops_per_gpu=tflops,
                mfu_pct=mfu,
                source=Citation(
                    file=file,
                    lines=cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]


_DS_CONFIG = re.compile(
    r"\[config\.py:\d++:print\]\s++([a-z_0-9]++)(?:\s*+\.++)?\s++(\S++)\s*+$"
)
_DS_CURR = re.compile(whole_word("CurrSamplesPerSec=") + "(" + NUMBER + ")")
_DS_OLD = re.compile(
    r"\[timer\.py:\d++:stop\]\s++\d++/\d++, SamplesPerSec=(" + NUMBER + ")"
)
_DS_LAUNCH = re.compile(whole_word("dist_world_size=") + r"(\d++)")


class DeepSpeed(Reader):
    name = "DeepSpeed"
    triggers = ("[config.py:", "dist_world_size=", "samplespersec")

    def __init__(self, unread):
        super().__init__(unread)
        self.series = Series()
        self.config: dict[str, tuple[str, int]] = {}
        self.world: tuple[int, int, str] | None = None
        self.old = False

    def feed(self, number, line):
        if "[config.py:" in line and ":print]" in line:
            match = _DS_CONFIG.search(line)
            if match and match.group(1) not in self.config:
                self.config[match.group(1)] = (match.group(2), number)
            return
        if "dist_world_size=" in line:
            match = _DS_LAUNCH.search(line)
            size = positive_int(match.group(1)) if match else None
            if size and self.world is None:
                self.world = (size, number, "dist_world_size")
            return
        if "SamplesPerSec" not in line:
            return
        self.seen = True
        match = _DS_CURR.search(line)
        if match is None:
            match = _DS_OLD.search(line)
            self.old = self.old or match is not None
        value = to_float(match.group(1)) if match else None
        if value is None or value <= 0:
            self.unread.add(number)
            return
        self.series.add(value, number, line)

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        stated = self.world
        world = self.config.get("world_size")
        if world and (size := positive_int(world[0])):
            stated = (size, world[1], "world_size")
            if self.world and self.world[0] != stated[0]:
                # With pipeline, tensor or sequence parallelism (an ``mpu``) the
                # configuration's world_size counts data-parallel ranks only.
                notes.append(
                    f"the configuration's world_size = {stated[0]} (line "
                    f"{stated[1]}): with model, pipeline or sequence parallelism "
                    "it counts the data-parallel ranks only; the launcher's "
                    "count of processes is used"
                )
                stated = self.world
        count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
        value, lines, warmup = self.series.steady()
        key = "SamplesPerSec (a running average)" if self.old else "CurrSamplesPerSec"
        formula = (
            f"median over {len(lines)} timer line(s) of {key} = "
            f"{figure(value)} samples/s of the global batch"
        )
        batch = self.config.get("train_batch_size")
        if batch:
            formula += f" (train_batch_size {batch[0]}, line {batch[1]})"
        if count:
            formula += f"; GPUs: {gpus_from}"
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=value,
                unit=SAMPLES,
                gpus_from=gpus_from,
                source=Citation(
                    file=file,
                    lines=cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]
