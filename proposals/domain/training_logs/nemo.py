"""NVIDIA NeMo: the step timing exp_manager's ``TimingCallback`` logs
(``train_step_timing in s=2.960`` in the 1.x bar's postfix) and NeMo 2.0's
ProgressPrinter lines (``Training epoch 0, iteration 10/99 | … | train_step_timing
in s: 2.118``)."""

from __future__ import annotations

import re
from array import array

from .lines import Reader, Series, cited
from .progress import bar_world
from .results import (
    NUMBER,
    SAMPLES,
    STEPS,
    TOKENS,
    Citation,
    Measurement,
    figure,
    positive_int,
    to_float,
    whole_word,
)

# NeMo 1.x (exp_manager's TimingCallback, in the bar's postfix): "train_step_timing
# in s=2.960"; NeMo 2 (ProgressPrinter): "| train_step_timing in s: 0.6201".
_NEMO_TIMING = re.compile(
    whole_word("train_step_timing in s") + r"\s*+[=:]\s*+(" + NUMBER + ")"
)
_NEMO_KEY = re.compile(
    "(" + whole_word("global_batch_size", "global_step", "consumed_samples") + r")"
    r"\s*+[=:]\s*+(" + NUMBER + ")"
)
# The configuration NeMo 1.x prints (OmegaConf YAML): "  global_batch_size: 256",
# "  encoder_seq_length: 4096", "  devices: 8", "  num_nodes: 2".
_NEMO_CONFIG = re.compile(
    r"^\s*+(global_batch_size|encoder_seq_length|seq_length|devices|num_nodes)"
    r":\s*+(\d++)\s*+$"
)


class NeMo(Reader):
    name = "NVIDIA NeMo"
    triggers = (
        "train_step_timing",
        "global_batch_size",
        "seq_length",
        "devices:",
        "num_nodes:",
        "member:",
        "starting with",
    )

    def __init__(self, unread):
        super().__init__(unread)
        self.series = Series()
        self.config: dict[str, tuple[int, int]] = {}
        self.world: tuple[int, int, str] | None = None
        self.batch: tuple[int, int] | None = None
        self.steps: array = array("d")
        self.samples: array = array("d")
        self.last_step: float | None = None

    def feed(self, number, line):
        lower = line.lower()
        if "train_step_timing" not in line:
            if ":" in line and (
                "_size" in line
                or "_length" in line
                or "devices" in line
                or "num_nodes" in line
            ):
                match = _NEMO_CONFIG.match(line)
                if match and match.group(1) not in self.config:
                    setting = positive_int(match.group(2))
                    if setting:
                        self.config[match.group(1)] = (setting, number)
            if self.world is None:
                self.world = bar_world(number, line, lower)
            return
        self.seen = True
        timing = _NEMO_TIMING.search(line)
        value = to_float(timing.group(1)) if timing else None
        if value is None or value <= 0:
            self.unread.add(number)
            return
        keys = {m.group(1): m.group(2) for m in _NEMO_KEY.finditer(line)}
        step = to_float(keys.get("global_step", ""))
        if step is not None and step == self.last_step:
            # The bar redrawn without a new step (its postfix set again after a
            # validation run): the same step's timing.
            return
        self.last_step = step
        batch = positive_int(keys.get("global_batch_size", ""))
        if batch and self.batch is None:
            self.batch = (batch, number)
        consumed = to_float(keys.get("consumed_samples", ""))
        if (
            step is not None
            and consumed is not None
            and "e" not in keys["consumed_samples"].lower()
        ):
            self.steps.append(step)
            self.samples.append(consumed)
        self.series.add(value, number, line)

    def _global_batch(self) -> tuple[int, str, tuple[int, ...]] | None:
        if self.batch:
            return (
                self.batch[0],
                f"global_batch_size = {self.batch[0]} (line {self.batch[1]})",
                (self.batch[1],),
            )
        if "global_batch_size" in self.config:
            value, line = self.config["global_batch_size"]
            return (
                value,
                f"global_batch_size = {value} (line {line}, the configuration)",
                (line,),
            )
        # consumed_samples grows by the global batch size each step.
        if len(self.steps) >= 2 and self.steps[-1] > self.steps[0]:
            per_step = (self.samples[-1] - self.samples[0]) / (
                self.steps[-1] - self.steps[0]
            )
            if per_step >= 1 and abs(per_step - round(per_step)) < 1e-6:
                value = round(per_step)
                return (
                    value,
                    f"global batch size {value} = consumed_samples "
                    f"{figure(self.samples[-1] - self.samples[0])} / global steps "
                    f"{figure(self.steps[-1] - self.steps[0])}",
                    (),
                )
        return None

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        stated = self.world
        if stated is None and "devices" in self.config and "num_nodes" in self.config:
            devices, line = self.config["devices"]
            nodes, nodes_line = self.config["num_nodes"]
            stated = (
                devices * nodes,
                max(line, nodes_line),
                f"trainer devices {devices} × num_nodes {nodes}",
            )
        count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
        seconds, lines, warmup = self.series.steady()
        batch = self._global_batch()
        seq = self.config.get("encoder_seq_length") or self.config.get("seq_length")
        extra: tuple[int, ...] = ()
        if batch and seq:
            throughput, unit = batch[0] * seq[0] / seconds, TOKENS
            formula = (
                f"{batch[1]} × seq_length {seq[0]} (line {seq[1]}) / median "
                f"train_step_timing over {len(lines)} step(s) {figure(seconds)} s "
                f"≈ {figure(throughput)} tokens/s"
            )
            extra = (*batch[2], seq[1])
        elif batch:
            throughput, unit = batch[0] / seconds, SAMPLES
            formula = (
                f"{batch[1]} / median train_step_timing over {len(lines)} step(s) "
                f"{figure(seconds)} s ≈ {figure(throughput)} samples/s (no seq_length "
                "in the log, so samples, not tokens)"
            )
            extra = batch[2]
        else:
            throughput, unit = 1 / seconds, STEPS
            formula = (
                f"1 / median train_step_timing over {len(lines)} step(s) "
                f"{figure(seconds)} s ≈ {figure(throughput)} steps/s"
            )
            notes.append(
                "the global batch size: the log states none (global_batch_size, "
                "consumed_samples), so steps/s, not samples/s"
            )
        if count:
            formula += f"; GPUs: {gpus_from}"
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=throughput,
                unit=unit,
                gpus_from=gpus_from,
                source=Citation(
                    file=file,
                    lines=cited(gpu_lines + extra, _unique(lines)),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]


def _unique(lines: tuple[int, ...]) -> tuple[int, ...]:
    """Line numbers in order, each once (a progress bar's updates share one)."""
    found: list[int] = []
    for line in lines:
        if not found or found[-1] != line:
            found.append(line)
    return tuple(found)
