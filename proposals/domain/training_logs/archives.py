"""Logs sent in a zip or tar archive (the scaling kit's logs, all at once): the
archive's regular files, each read as a log of its own, named ``archive/member``.

Nothing is extracted to disk. A member is read up to the reader's file limit plus
one byte (a larger one is named, not read, whatever its header claims), at most
``MAX_MEMBERS`` members and ``MAX_ARCHIVE_BYTES`` in all (a small archive cannot
unpack into gigabytes).
"""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Iterator

from .results import MAX_FILE_BYTES

MAX_MEMBERS = 200
MAX_ARCHIVE_BYTES = 4 * MAX_FILE_BYTES
ZIP_NAMES = (".zip",)
TAR_NAMES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")


def is_archive(name: str) -> bool:
    """Whether ``name`` is read as an archive (by its ending, never by guessing)."""
    return name.lower().endswith(ZIP_NAMES + TAR_NAMES)


def members(name: str, data: bytes) -> Iterator[tuple[str, bytes | None]]:
    """``(name, data)`` of each regular file of the archive ``name`` (``data`` is
    ``None`` for a member above the file limit or past the archive's limits);
    a file that is not an archive is yielded as it is."""
    if not is_archive(name):
        yield name, data
        return
    budget = MAX_ARCHIVE_BYTES
    count = 0
    for member, read in _entries(name, data):
        count += 1
        if count > MAX_MEMBERS or budget <= 0:
            yield f"{name}/{member}", None
            continue
        body = read(min(MAX_FILE_BYTES, budget) + 1)
        budget -= len(body)
        too_big = len(body) > MAX_FILE_BYTES or budget < 0
        yield f"{name}/{member}", None if too_big else body


def _entries(name: str, data: bytes):
    """The archive's regular files as ``(member name, read(limit))``."""
    if name.lower().endswith(ZIP_NAMES):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    with archive.open(info) as handle:
                        yield info.filename, handle.read
        return
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        for member in archive:
            if member.isfile():
                extracted = archive.extractfile(member)
                assert extracted is not None  # None only for what is not a file
                yield member.name, extracted.read
