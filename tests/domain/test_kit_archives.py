"""Kit logs sent back in a zip or tar (issue 37): each member is read as a file of
its own, nothing above the limits is read, and a kit log's name gives its GPU
count."""

import io
import tarfile
import zipfile

from proposals.domain.scaling_kit import KitJob, kit_gpus
from proposals.domain.training_logs import archives


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("logs/", "")  # a directory entry: skipped
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def tarred(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


FILES = {"scaling_8gpus_1.log": b"a\n", "logs/scaling_16gpus_2.log": b"b\n"}


def test_zip_and_tar_members_are_files_of_their_own():
    assert list(archives.members("kit.zip", zipped(FILES))) == [
        ("kit.zip/scaling_8gpus_1.log", b"a\n"),
        ("kit.zip/logs/scaling_16gpus_2.log", b"b\n"),
    ]
    assert list(archives.members("kit.tar.gz", tarred(FILES))) == [
        ("kit.tar.gz/scaling_8gpus_1.log", b"a\n"),
        ("kit.tar.gz/logs/scaling_16gpus_2.log", b"b\n"),
    ]


def test_a_plain_log_passes_through():
    assert list(archives.members("run.log", b"x")) == [("run.log", b"x")]


def test_a_member_above_the_limit_is_named_not_read(monkeypatch):
    monkeypatch.setattr(archives, "MAX_FILE_BYTES", 10)
    big = {"small.log": b"12345", "big.log": b"x" * 1000}
    assert list(archives.members("k.zip", zipped(big))) == [
        ("k.zip/small.log", b"12345"),
        ("k.zip/big.log", None),
    ]


def test_too_many_members_are_not_read(monkeypatch):
    monkeypatch.setattr(archives, "MAX_MEMBERS", 2)
    many = {f"{i}.log": b"x" for i in range(4)}
    read = [data for _, data in archives.members("k.zip", zipped(many))]
    assert read == [b"x", b"x", None, None]


def test_kit_log_names_give_the_gpu_count():
    job = KitJob(gpus=16, nodes=4, slurm_gpus_per_node=8, partition="p", minutes=30)
    assert kit_gpus(f"{job.name}_12345.log") == 16
    assert kit_gpus("kit.zip/logs/scaling_8gpus_1.log") == 8
    assert kit_gpus("scaling_8gpus1.log") == 0
    assert kit_gpus("megatron-2024-8gpus.log") == 0
