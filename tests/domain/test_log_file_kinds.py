"""A file dropped as a training log that is not text (issue 36): an empty file, an
image, a PDF or an archive is answered in one line saying what it is, not with the
long list of every format the reader looked for."""

import gzip
import io
import zipfile
from pathlib import Path

import pytest

from proposals.domain import training_logs

LOGS = Path(__file__).parent / "logs"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("train.log", "iteration 1/10 | elapsed time per iteration")
    return buffer.getvalue()


def _refused(data: bytes, file: str) -> str:
    reading = training_logs.read_file(io.BytesIO(data), file=file)
    assert not reading.ok and not reading.measurements
    assert "\n" not in reading.refused
    assert "looked for" not in reading.refused
    return reading.refused


@pytest.mark.parametrize(
    ("data", "file", "says"),
    [
        (
            PNG,
            "loss-curve.png",
            "loss-curve.png: this is an image (PNG), not a training log.",
        ),
        (b"", "train.log", "train.log: the file is empty."),
        (b"\xff\xd8\xff\xe0" + bytes(32), "photo.jpg", "this is an image (JPEG)"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "report.pdf", "this is a PDF document"),
        (_zip(), "logs.zip", "this is a zip archive, not a training log: unpack it"),
        (
            gzip.compress(b"step 1 tok/s 10\n", mtime=0),
            "train.log.gz",
            "a gzip-compressed file",
        ),
    ],
)
def test_a_file_that_is_not_a_log_is_named_in_one_line(data, file, says):
    assert says in _refused(data, file)


def test_a_text_log_is_still_read_after_its_first_bytes_were_looked_at():
    data = (LOGS / "megatron-2024-8gpus.log").read_bytes()
    reading = training_logs.read_file(io.BytesIO(data), file="m.log")
    plain = training_logs.read_log(
        data.decode().splitlines(keepends=True), file="m.log"
    )
    assert reading.measurements and reading.measurements == plain.measurements
