"""The provenance kept with a row read from a log (``Citation.summary``), in the
reader's language when it is shown (issue 36).

The row stores the provenance in English, as read (the JSON, the portal and every
reader share it); this module rewrites its recurring phrases in the active language
at show time, never storing the translation. Each phrase is an English msgid with
``{names}`` for its values; a pattern made from the msgid finds it in the stored text
and puts the values into the translation. Its numbers are then written in the
active number format (``4,217 ms`` -> ``4.217 ms`` in German). In English with the
portal's number format the text comes back unchanged. What no phrase covers (a
framework's own key names, a log's excerpt lines) stays as read. Pure Python: no
Django.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from proposals.domain.i18n import gettext, gettext_noop, reading
from proposals.domain.numbers import PORTAL, NumberFormat, active_format

from .sacct import ENDED, NOT_ENDED

# The values a phrase holds: a number (``1,116``, ``4.51``, ``1.99–2.01``) or text
# up to the phrase's next literal.
_NUMBER = r"[\d][\d,.\u2013–]*"
_VALUES = {
    name: _NUMBER
    for name in (
        "n",
        "line",
        "gpus",
        "value",
        "rank",
        "steps",
        "factor",
        "total",
        "divisor",
    )
}

# Longest first where one phrase holds another. Each is a whole phrase of a stored
# provenance (training_logs' formulas, notes and ``Citation.summary``'s frame).
PHRASES = (
    gettext_noop(
        "the configuration's world_size = {n} (line {line}): with model, pipeline "
        "or sequence parallelism it counts the data-parallel ranks only; the "
        "launcher's count of processes is used"
    ),
    gettext_noop(
        "the GPU count given ({n}) differs from the log's {what} = {value} "
        "(line {line}); the log's is used"
    ),
    gettext_noop(
        "the GPU count: the run used DataParallel (line {line}), whose GPUs the "
        "total batch size does not separate"
    ),
    gettext_noop(
        "validation step lines ({lines}): forward passes only, not training throughput"
    ),
    gettext_noop(
        "the step lines of rank(s) {ranks}: the same steps, logged on other "
        "nodes; those of rank {rank} are used"
    ),
    gettext_noop(
        "the bar counts batches ({n} = {steps} optimization steps × {factor} "
        "accumulation steps): {total} / {divisor} samples each"
    ),
    gettext_noop(
        "the bar is taken to count optimization steps, as Accelerate's example "
        "scripts update it (once per {key})"
    ),
    gettext_noop(
        "the global batch size: the log states none (global_batch_size, "
        "consumed_samples), so steps/s, not samples/s"
    ),
    gettext_noop(
        "{n} GCDs is not a whole number of {system} GPUs ({value} GCDs each): the "
        "count is kept as the log gives it"
    ),
    gettext_noop("{n} GCDs = {gpus} GPUs on {system} ({value} GCDs per GPU)"),
    gettext_noop(
        "the GPUs are those requested ({column}): the output has no AllocTRES column"
    ),
    gettext_noop("Lightning's MEMBER count"),
    gettext_noop("Epoch {n}:"),
    gettext_noop("tokens/s per device"),
    gettext_noop("differs from"),
    gettext_noop("{n}, as given (the log does not state it)"),
    gettext_noop("line {line}, the first interval (warm-up)"),
    gettext_noop("line {line}, the bar's steps up to {n} (warm-up)"),
    gettext_noop("only one interval was logged: it includes the warm-up"),
    gettext_noop("no intervals are logged, so the warm-up is included"),
    gettext_noop("median over {n} interval(s) of"),
    gettext_noop("median over {n} step line(s) of"),
    gettext_noop("median over {n} timer line(s) of"),
    gettext_noop("median over {n} logged window(s) of"),
    gettext_noop("median over {n} bar runs (epochs)"),
    gettext_noop("global batch size"),
    gettext_noop("elapsed time per iteration"),
    gettext_noop("samples/s of the global batch"),
    gettext_noop("(tokens per second per GPU)"),
    gettext_noop("(SpeedMonitor, the whole job)"),
    gettext_noop("(a running average)"),
    gettext_noop("TFLOP/s per GPU (median)"),
    gettext_noop("as the Trainer computed it over the whole run"),
    gettext_noop("(no seq_length in the log, so samples, not tokens)"),
    gettext_noop("jobs without GPUs:"),
    gettext_noop("running jobs have no final length:"),
    gettext_noop("pending jobs have no final length:"),
    gettext_noop("requeued jobs have no final length:"),
    gettext_noop("resizing jobs have no final length:"),
    gettext_noop("suspended jobs have no final length:"),
    gettext_noop("revoked jobs have no final length:"),
    gettext_noop("jobs that ran for less than {n} seconds:"),
    gettext_noop("jobs that never started (Elapsed 0):"),
    gettext_noop("job steps (.batch, .extern, .0, …) are part of their job:"),
    gettext_noop("array tasks not yet run have no length:"),
    gettext_noop("{n} array task(s) not yet run"),
    gettext_noop("{n} task(s) of job array"),
    gettext_noop("(an array is one kind of job, whatever its tasks' lengths)"),
    gettext_noop(
        # xgettext:no-python-format
        "(the same name and GPUs, lengths within {n} % of each other: one kind of job)"
    ),
    gettext_noop("{n} job(s)"),
    gettext_noop("with gres/gpu = {gpus} and"),
    gettext_noop("with gres/gpu = {gpus}"),
    gettext_noop("(to {value} h)"),
    gettext_noop("mean {value} h"),
    gettext_noop("and {n} more"),
    gettext_noop("states:"),
    gettext_noop("the bar went from step {n} to {value} in"),
    gettext_noop("the bar counts optimization steps"),
    gettext_noop("the bar shows whole seconds: over {n} s the rate is known to"),
    gettext_noop(
        "samples/s: each step is one batch on each GPU, and the log states no "
        "batch size, so steps/s"
    ),
    gettext_noop("total train batch size"),
    gettext_noop("batch size per device"),
    gettext_noop("accumulation steps"),
    gettext_noop("device mesh size"),
    gettext_noop("median seconds per step over {n} step line(s)"),
    gettext_noop("median train_step_timing over {n} step(s)"),
    gettext_noop("global steps"),
    gettext_noop("{n} devices"),
    gettext_noop("per GPU"),
    gettext_noop("(line {line}, the configuration)"),
    gettext_noop("Left out:"),
    gettext_noop("GPUs:"),
    gettext_noop("(line {line})"),
    gettext_noop("({n} lines)"),
    gettext_noop("lines {line}"),
    gettext_noop("line {line}"),
    gettext_noop("no line"),
)


def _pattern(msgid: str) -> re.Pattern:
    """The msgid as a pattern: its literals escaped, each ``{name}`` a group. A
    phrase that starts or ends with a letter does so at a word boundary."""
    parts = re.split(r"\{(\w+)\}", msgid)
    pattern = ""
    for i, part in enumerate(parts):
        if i % 2:
            pattern += f"(?P<{part}>{_VALUES.get(part, '.+?')})"
        else:
            pattern += re.escape(part)
    head = r"(?<![\w])" if msgid[:1].isalnum() else ""
    tail = r"(?![\w])" if msgid[-1:].isalnum() or msgid.endswith("}") else ""
    return re.compile(head + pattern + tail)


@functools.cache
def _patterns() -> tuple[tuple[re.Pattern, str], ...]:
    return tuple((_pattern(msgid), msgid) for msgid in PHRASES)


def in_reader_language(text: str) -> str:
    """``text`` (a stored provenance) with its phrases in the active language and
    its numbers in the active number format (:func:`in_reader_format`); unchanged
    in English with the portal's format. Excerpt lines (indented: the log's own
    lines) and the file name the first line starts with are kept."""
    if not text:
        return text
    translate = reading()[1] not in (None, "source") and not _english()
    fmt = active_format()
    reformat = _shape(fmt) != _shape(PORTAL)  # the stored form is the portal's
    if not (translate or reformat):
        return text
    shown = []
    for number, line in enumerate(text.split("\n")):
        if line.startswith("  "):
            shown.append(line)
            continue
        head = _FILE.match(line) if number == 0 else None
        line = line[head.end() :] if head else line
        line = _translated(line) if translate else line
        line = in_reader_format(line, fmt) if reformat else line
        shown.append((head[0] if head else "") + line)
    return "\n".join(shown)


# The file name a provenance starts with (``Citation.summary``: "{file}, {lines}:"),
# the person's own: kept as named, digits and all.
_FILE = re.compile(r"\A.*?, (?=lines? |no line)")

# A number as the log reader writes it (the portal's form: ``4,217``, ``0.414``,
# ``±2.00 %``, ``-3``), not part of a name (``accelerate-0.30``, ``4812_0``,
# ``LUMI-G``), a time (``00:12``), a Slurm step (``.0``) or array (``[0-7%4]``).
_WRITTEN = re.compile(
    r"(?<![\w.,:/%\[\-\u2212+±])(?P<sign>[-\u2212+±]?)"
    r"(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<fraction>\d+))?"
    r"(?!\w|[.,:/]\w)(?P<percent> ?%)?"
)


def _shape(fmt: NumberFormat) -> tuple:
    return (
        fmt.decimal,
        fmt.group_display,
        fmt.minus,
        fmt.primary,
        fmt.secondary,
        fmt.percent_affixes,
    )


def in_reader_format(line: str, fmt: NumberFormat) -> str:
    """``line`` (a provenance's line in the portal's number form) with each number
    written in ``fmt``: the same digits and decimals, grouped where the portal
    grouped them (``4,217`` -> ``4.217``; a log's ``2048`` stays ungrouped), a
    percentage with ``fmt``'s sign (``±2.00 %`` -> ``±2,00 %``). A value never
    changes: the digits are moved, not read as a float."""

    def written(match: re.Match) -> str:
        whole = match["whole"]
        sign = match["sign"]
        if sign and sign in "-\u2212":
            whole, sign = "-" + whole, ""
        text = fmt.write(
            whole.replace(",", ""), match["fraction"] or "", grouping="," in whole
        )
        if match["percent"]:
            before, after = fmt.percent_affixes
            minus = fmt.minus if text.startswith(fmt.minus) else ""
            text = f"{minus}{before}{text[len(minus) :]}{after}"
        return sign + text

    return _WRITTEN.sub(written, line)


def _english() -> bool:
    return gettext("GPUs:") == "GPUs:" and gettext("Left out:") == "Left out:"


def _keep(msgid: str, done: list[str], match: re.Match) -> str:
    """``match`` of ``msgid`` translated into ``done``, and its marker. A value
    that is text (the log's key a count was read from, the lines of a note) has its
    own phrases translated too."""
    values = {
        name: value if _VALUES.get(name) == _NUMBER else _translated(value)
        for name, value in match.groupdict().items()
    }
    done.append(gettext(msgid).format(**values))
    return f"\0{len(done) - 1}\0"


def _translated(line: str) -> str:
    # Each phrase once over the line, replaced by a marker so that a shorter phrase
    # never rewrites a translation; the markers become the translations at the end.
    done: list[str] = []

    for pattern, msgid in _patterns():
        line = pattern.sub(functools.partial(_keep, msgid, done), line)
    return re.sub(r"\0(\d+)\0", lambda m: done[int(m[1])], line)


# What a shown provenance keeps as the log and the framework wrote it (code, in
# English): a key with ``_``, ``/`` or ``.`` inside (``world_size``, ``gres/gpu``,
# ``tokens/s``), a CamelCase name (``CurrSamplesPerSec``), Slurm's column and states.
_KEY = re.compile(
    r"(?<![\w/.])(?:[A-Za-z]\w*(?:[_/.]\w+)+|[A-Z][a-z]+[A-Z]\w*|"
    + "|".join(("Elapsed", *ENDED, *NOT_ENDED))
    + r")(?![\w/])"
)


@dataclass(frozen=True)
class Line:
    """A line of a shown provenance: the log's own (an excerpt, ``quoted``) or the
    reader's, in ``parts`` of text, each marked when it is a key name."""

    text: str
    quoted: bool
    parts: tuple[tuple[str, bool], ...]


def shown_lines(text: str) -> tuple[Line, ...]:
    """``text`` (a provenance as shown) in lines, for a page to mark the log's own
    lines and the key names as English (``lang="en"``)."""
    found = []
    for line in text.split("\n"):
        if line.startswith("  "):
            found.append(Line(line.strip(), True, ((line.strip(), False),)))
            continue
        parts, start = [], 0
        for match in _KEY.finditer(line):
            if match.start() > start:
                parts.append((line[start : match.start()], False))
            parts.append((match[0], True))
            start = match.end()
        if start < len(line):
            parts.append((line[start:], False))
        found.append(Line(line, False, tuple(parts)))
    return tuple(found)
