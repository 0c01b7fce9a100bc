"""Reading a 50 MB training log: wall time and peak memory, against a plain decoded
line loop over the same file (``for line in TextIOWrapper(file)``: the floor any
reader pays, done in C); and a 50 MB file of the worst lines of every pattern."""

import io
import time
import tracemalloc
from pathlib import Path

from proposals.domain.training_logs import iter_lines, read_file, read_log
from tests.bench.conftest import meets, report
from tests.domain.regex_shapes import shapes
from tests.domain.test_log_reader_linear import PATTERNS

#: The reader's time against the plain line loop's (issue 30).
TARGET_RATIO = 3

SIZE = 50 * 1024 * 1024
LOGS = Path(__file__).parent.parent / "domain" / "logs"


def _write_50_mb(path: Path) -> int:
    """A Megatron log of 50 MB: the real fixture's head, then iteration lines with
    the noise real runs print between them, repeated to size."""
    head = (LOGS / "megatron-2024-8gpus.log").read_text().splitlines()[:35]
    noise = [
        "[Rank 0] (after 10 iterations) memory (MB) | allocated: 40214.5 | "
        "max allocated: 61232.1 | reserved: 64020.0 | max reserved: 64020.0",
        "    forward-backward ...............................: (3512.21, 3520.87)",
        "NCCL INFO Channel 00/32 : 0[0] -> 1[1] via P2P/IPC/read",
    ]
    iterations = 0
    with open(path, "w") as out:
        out.write("\n".join(head) + "\n")
        while out.tell() < SIZE:
            iterations += 1
            out.write(
                f" [2024-09-12 10:03:11] iteration {iterations * 10:8d}/ 9999999 | "
                f"consumed samples: {iterations * 2560:12d} | elapsed time per "
                f"iteration (ms): {4200 + iterations % 7:.1f} | throughput per GPU "
                "(TFLOP/s/GPU): 380.0 | learning rate: 3.000000E-04 | global batch "
                "size:   256 | lm loss: 2.000000E+00 | loss scale: 1.0 |\n"
            )
            out.write("\n".join(noise) + "\n")
    return iterations


def _measure(func):
    """Wall time of one run, then the peak of Python's allocations in a second run
    (tracemalloc slows the run it watches, so it does not time it)."""
    start = time.perf_counter()
    result = func()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak


def test_bench_read_a_50_mb_log(tmp_path):
    path = tmp_path / "megatron-50mb.log"
    iterations = _write_50_mb(path)

    def floor():
        with open(path, "rb") as raw:
            stream = io.TextIOWrapper(raw, encoding="utf-8", errors="replace")
            return sum(1 for _ in stream)

    def split():
        with open(path, "rb") as stream:
            return sum(1 for _ in iter_lines(stream))

    def read():
        with open(path, "rb") as stream:
            return read_file(stream, file=path.name)

    def read_lines():
        with open(path, "rb") as stream:
            return read_log(iter_lines(stream), file=path.name)

    lines, floor_s, floor_peak = _measure(floor)
    _, split_s, _ = _measure(split)
    reading, read_s, read_peak = _measure(read)
    by_lines, lines_s, _ = _measure(read_lines)
    assert by_lines.measurements == reading.measurements
    (measurement,) = reading.measurements
    assert measurement.gpus == 8
    assert len(measurement.source.lines) == iterations - 1 + 2  # + world_size, seq
    mb = path.stat().st_size / 1024 / 1024
    report(
        "Reading a training log of 50 MB (Megatron-LM, line by line)",
        [
            ("file", f"{mb:.1f} MB, {lines:,} lines, {iterations:,} iterations"),
            (
                "plain decoded line loop (floor)",
                f"{floor_s:6.2f} s, peak {floor_peak / 1e6:6.2f} MB",
            ),
            ("iter_lines (the splitter)", f"{split_s:6.2f} s"),
            ("read_file (blocks)", f"{read_s:6.2f} s, peak {read_peak / 1e6:6.2f} MB"),
            ("read_log (line by line)", f"{lines_s:6.2f} s"),
            ("splitter / floor", f"{split_s / floor_s:6.1f}x"),
            (
                f"read_file / floor (target {TARGET_RATIO}x)",
                f"{read_s / floor_s:6.1f}x  "
                + meets(
                    "training log read / plain line loop",
                    read_s / floor_s,
                    TARGET_RATIO,
                ),
            ),
            ("peak memory / file size", f"{read_peak / path.stat().st_size:6.1%}"),
            ("peak memory per interval", f"{read_peak / iterations:6.0f} bytes"),
        ],
    )
    # Bounded memory: what is kept grows with the intervals (a few arrays of 8-byte
    # values and the cited line numbers), never with the text.
    assert read_peak < 1_000_000 + 128 * iterations


def test_bench_read_50_mb_of_the_worst_lines(tmp_path):
    """Every pattern's worst lines (generated from its quantifiers), repeated to the
    upload limit: seconds, not hours."""
    lines = [
        line
        for pattern in PATTERNS.values()
        if isinstance(pattern.pattern, str)
        for line in shapes(pattern, 16_384)
    ]
    block = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "hostile.log"
    with open(path, "wb") as out:
        while out.tell() < SIZE:
            out.write(block)
    with open(path, "rb") as raw:
        start = time.perf_counter()
        sum(1 for _ in io.TextIOWrapper(raw, encoding="utf-8", errors="replace"))
        floor_s = time.perf_counter() - start
    with open(path, "rb") as stream:
        start = time.perf_counter()
        read_file(stream, file=path.name)
        read_s = time.perf_counter() - start
    mb = path.stat().st_size / 2**20
    report(
        "Reading 50 MB of the worst lines of every pattern",
        [
            ("file", f"{mb:.1f} MB, {len(lines):,} distinct lines"),
            ("plain decoded line loop", f"{floor_s:6.2f} s"),
            ("read_file", f"{read_s:6.2f} s ({read_s / mb * 1000:.0f} ms per MB)"),
        ],
    )
