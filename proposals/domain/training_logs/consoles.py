"""MosaicML Composer's console logging (llm-foundry's too) and MaxText's step lines."""

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
    positive_int,
    to_float,
    whole_word,
)

# ---------------------------------------------------------------------- Composer

# ConsoleLogger prints the metrics of each logged batch one a line, under the
# batch ("[batch=10/4800]:", "[epoch=1][batch=5/5]:"):
# "\t Train throughput/tokens_per_sec: 20082.8418"; SpeedMonitor logs the whole
# job's figures and, under "device/", one GPU's.
_COMPOSER_METRIC = re.compile(
    whole_word("throughput/")
    + r"(device/)?+(tokens_per_sec|samples_per_sec|flops_per_sec|mfu):\s*+("
    + NUMBER
    + ")"
)
# llm-foundry's configuration printout: "n_gpus: 16".
_COMPOSER_GPUS = re.compile(whole_word("n_gpus:") + r"\s*+(\d++)\s*+$")


class Composer(Reader):
    name = "MosaicML Composer"
    triggers = ("throughput/", "n_gpus:")

    def __init__(self, unread):
        super().__init__(unread)
        self.series = {TOKENS: Series(), SAMPLES: Series()}
        self.device = {TOKENS: Series(), SAMPLES: Series()}
        self.tflops = Series()
        self.mfu = Series()
        self.world: tuple[int, int, str] | None = None

    def feed(self, number, line):
        if "n_gpus:" in line:
            match = _COMPOSER_GPUS.search(line)
            size = positive_int(match.group(1)) if match else None
            if size and self.world is None:
                self.world = (size, number, "n_gpus")
            return
        if "throughput/" not in line:
            return
        match = _COMPOSER_METRIC.search(line)
        if match is None:
            return
        self.seen = True
        value = to_float(match.group(3))
        if value is None or value <= 0:
            self.unread.add(number)
            return
        per_device, key = bool(match.group(1)), match.group(2)
        if key == "mfu":
            if per_device:
                self.mfu.add(value * 100, number, line)
        elif key == "flops_per_sec":
            if per_device:
                self.tflops.add(value / 1e12, number, line)
        else:
            unit = TOKENS if key == "tokens_per_sec" else SAMPLES
            (self.device if per_device else self.series)[unit].add(value, number, line)

    def has_data(self) -> bool:
        return any(self.series.values())

    def measurements(self, file, gpus):
        unit = TOKENS if self.series[TOKENS] else SAMPLES
        series = self.series[unit]
        if not series:
            return []
        notes: list[str] = []
        value, lines, warmup = series.steady()
        stated = self.world
        device = self.device[unit]
        if stated is None and len(device) == len(series):
            # The whole job's figure over one GPU's, line by line: the GPU count.
            ratios = {
                round(a / b, 6)
                for a, b in zip(series.values, device.values, strict=True)
                if b > 0
            }
            if len(ratios) == 1:
                ratio = ratios.pop()
                if ratio >= 1 and abs(ratio - round(ratio)) < 0.01:
                    stated = (
                        round(ratio),
                        device.lines[-1],
                        f"throughput/{_key(unit)} / throughput/device/{_key(unit)}",
                    )
        count, gpus_from, gpu_lines = self._gpus(stated, gpus, notes)
        formula = (
            f"median over {len(lines)} logged window(s) of throughput/{_key(unit)} "
            f"(SpeedMonitor, the whole job) = {figure(value)} {unit}"
        )
        if count:
            formula += f"; GPUs: {gpus_from}"
        tflops = self.tflops.steady()[0] if self.tflops else None
        mfu = self.mfu.steady()[0] if self.mfu else None
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=value,
                unit=unit,
                gpus_from=gpus_from,
                tflops_per_gpu=tflops,
                mfu_pct=mfu,
                source=Citation(
                    file=file,
                    lines=cited(gpu_lines, lines),
                    formula=formula,
                    excerpt=series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]


def _key(unit: str) -> str:
    return "tokens_per_sec" if unit == TOKENS else "samples_per_sec"


# ----------------------------------------------------------------------- MaxText

# metric_logger.py (2024 on): "completed step: 9, seconds: 5.667, TFLOP/s/device:
# 134.924, Tokens/s/device: 8672.758, total_weights: 196608, loss: 10.374"; 2023's
# train.py: "completed step: 9, seconds: 0.412, TFLOP/s: 134.6, loss: 7.412".
_MT_STEP = re.compile(
    whole_word("completed step:") + r"\s*+(\d++),\s*+seconds:\s*+(" + NUMBER + ")"
)
_MT_TFLOPS = re.compile(r"TFLOP/s(?:/device)?+:\s*+(" + NUMBER + ")")
_MT_TOKENS = re.compile(r"Tokens/s/device:\s*+(" + NUMBER + ")")
# "Num_devices: 4, shape (1, 1, 4, 1, ...)" (2024 on), "Devices: [...] (num_devices:
# 4)" (2023): searched in the lower-cased line.
_MT_DEVICES = re.compile(whole_word("num_devices:") + r"\s*+(\d++)")
_MT_CONFIG = re.compile(
    whole_word("Config param")
    + r"\s++(per_device_batch_size|max_target_length|gradient_accumulation_steps)"
    r":\s*+(" + NUMBER + r")\s*+$"
)


class MaxText(Reader):
    name = "MaxText"
    triggers = ("completed step:", "num_devices:", "config param")

    def __init__(self, unread):
        super().__init__(unread)
        self.series = Series()
        self.devices: tuple[int, int, str] | None = None
        self.config: dict[str, tuple[float, int]] = {}
        self.per_device_tokens = True

    def feed(self, number, line):
        if "completed step:" not in line:
            lower = line.lower()
            if "num_devices:" in lower and self.devices is None:
                match = _MT_DEVICES.search(lower)
                size = positive_int(match.group(1)) if match else None
                if size:
                    self.devices = (size, number, "num_devices")
            elif "Config param" in line:
                match = _MT_CONFIG.search(line)
                value = to_float(match.group(2)) if match else None
                if match and value and value > 0 and match.group(1) not in self.config:
                    self.config[match.group(1)] = (value, number)
            return
        self.seen = True
        step = _MT_STEP.search(line)
        seconds = to_float(step.group(2)) if step else None
        if step is None or seconds is None or seconds <= 0:
            self.unread.add(number)
            return
        tokens = _MT_TOKENS.search(line, step.end())
        tflops = _MT_TFLOPS.search(line, step.end())
        value = to_float(tokens.group(1)) if tokens else None
        if tokens and (value is None or value <= 0):
            self.unread.add(number)
            return
        self.per_device_tokens = self.per_device_tokens and value is not None
        self.series.add(
            value or 0.0,
            number,
            line,
            seconds=seconds,
            tflops=to_float(tflops.group(1)) if tflops else None,
        )

    def measurements(self, file, gpus):
        if not self.series:
            return []
        notes: list[str] = []
        count, gpus_from, gpu_lines = self._gpus(self.devices, gpus, notes)
        extra: tuple[int, ...] = ()
        if self.per_device_tokens:
            per_gpu, lines, warmup = self.series.steady()
            formula = (
                f"median over {len(lines)} step line(s) of Tokens/s/device "
                f"= {figure(per_gpu)}"
            )
        else:
            seconds = self.series.steady_extra("seconds")
            _, lines, warmup = self.series.steady()
            batch = self.config.get("per_device_batch_size")
            length = self.config.get("max_target_length")
            accumulation = self.config.get("gradient_accumulation_steps", (1, 0))
            if not (batch and length and seconds):
                return []  # refused as a MaxText log none of whose lines was read
            tokens = batch[0] * length[0] * accumulation[0]
            per_gpu = tokens / seconds
            formula = (
                f"per_device_batch_size {figure(batch[0])} (line {batch[1]}) × "
                f"max_target_length {figure(length[0])} (line {length[1]})"
                + (
                    f" × gradient_accumulation_steps {figure(accumulation[0])} "
                    f"(line {accumulation[1]})"
                    if accumulation[1]
                    else ""
                )
                + f" / median seconds per step over {len(lines)} step line(s) "
                f"{figure(seconds)} = {figure(per_gpu)} tokens/s per device"
            )
            extra = tuple(item[1] for item in (batch, length, accumulation) if item[1])
        if count:
            formula += (
                f" × {count} devices ({gpus_from}) ≈ {figure(per_gpu * count)} tokens/s"
            )
        return [
            Measurement(
                format=self.name,
                gpus=count,
                throughput=per_gpu * count if count else None,
                unit=TOKENS,
                per_gpu=per_gpu,
                gpus_from=gpus_from,
                tflops_per_gpu=self.series.steady_extra("tflops"),
                source=Citation(
                    file=file,
                    lines=cited(gpu_lines + extra, lines),
                    formula=formula,
                    excerpt=self.series.excerpt_lines(),
                    left_out=(warmup, *notes),
                ),
            )
        ]
