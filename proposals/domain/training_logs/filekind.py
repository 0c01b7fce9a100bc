"""What a dropped file is when it is not text: an empty file, an image, a PDF or an
archive is answered in one line naming what it is (from its first bytes, the formats'
magic numbers), not with the list of every log format the reader looked for."""

from __future__ import annotations

from ..i18n import gettext, gettext_noop

#: Leading bytes -> what the file is (a phrase with its article, for the sentence
#: "this is …, not a training log"), and whether it is an archive to unpack.
MAGIC: tuple[tuple[bytes, str, bool], ...] = (
    (b"\x89PNG\r\n\x1a\n", gettext_noop("an image (PNG)"), False),
    (b"\xff\xd8\xff", gettext_noop("an image (JPEG)"), False),
    (b"GIF87a", gettext_noop("an image (GIF)"), False),
    (b"GIF89a", gettext_noop("an image (GIF)"), False),
    (b"%PDF-", gettext_noop("a PDF document"), False),
    (b"PK\x03\x04", gettext_noop("a zip archive"), True),
    (b"PK\x05\x06", gettext_noop("a zip archive"), True),
    (b"\x1f\x8b", gettext_noop("a gzip-compressed file"), True),
    (b"\xfd7zXZ\x00", gettext_noop("an xz-compressed file"), True),
    (b"(\xb5/\xfd", gettext_noop("a zstd-compressed file"), True),
)
#: The bytes read to tell (the longest magic number).
HEAD_BYTES = max(len(magic) for magic, _, _ in MAGIC)


def not_a_log(file: str, head: bytes) -> str:
    """The one-line refusal of a file whose first bytes are ``head`` (at least
    :data:`HEAD_BYTES` of them, or the whole file), or "" when it may be a log."""
    if not head:
        return gettext("{file}: the file is empty.").format(file=file)
    for magic, what, archive in MAGIC:
        if head.startswith(magic):
            sentence = (
                gettext(
                    "{file}: this is {what}, not a training log: unpack it and drop "
                    "the log files it holds."
                )
                if archive
                else gettext("{file}: this is {what}, not a training log.")
            )
            return sentence.format(file=file, what=gettext(what))
    return ""


class Rewound:
    """``stream`` with ``head`` (already read from it) put back in front."""

    def __init__(self, head: bytes, stream):
        self.head, self.stream = head, stream

    def read(self, size: int = -1) -> bytes:
        if not self.head:
            return self.stream.read(size)
        head, self.head = self.head, b""
        if size < 0:
            return head + self.stream.read()
        return head + self.stream.read(max(size - len(head), 0))
