"""The Markdown summary of a whole proposal (GitHub-flavoured Markdown).

Applicant text is escaped so that it stays text wherever the file is rendered: HTML
tags, links and images (``[x](javascript:...)``), emphasis, code fences and table pipes
lose their meaning. Narrative fields keep their line breaks and paragraphs; single-line
fields (title, organisation, code names, table cells) have every line break folded into
a space, so that a line break in a title never starts a heading or a list. Only
references that are plain http(s) URLs become links. Pure Python: no Django. The
headings and labels are in the active language (``summary.py``).
"""

from __future__ import annotations

import base64
import re

from proposals.domain.i18n import gettext as _
from proposals.domain.sections import TABLE_BY_KIND, section_title

from .summary import FindingLine, Summary
from .tables import SOURCES_TITLE, FigureTable

# Characters with inline meaning in CommonMark/GFM; a backslash makes them literal.
# Without "[" no link or image can start, without "<" no HTML tag or autolink.
_INLINE = re.compile(r"([\\`*~\[\]<>|])")
# "_" only opens emphasis at a word boundary ("core_r0.9" needs no escape).
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# Line starts that would make a heading ("#" to "######" then a blank), a list item
# ("-", "+" or 1 to 9 digits and "." or ")", then a blank), a rule or a setext
# underline (a line of "-" or "="). "0.75 TB", "-5 °C" or "#42" start nothing.
_LINE_START = re.compile(
    r"^(#{1,6}(?=\s|$)|[-+](?=\s|$)|[-=](?=[-=\s]*$)|\d{1,9}(?=[.)](?:\s|$)))"
)
# Everything ``str.splitlines`` breaks at (CommonMark itself ends lines at \r and \n).
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_URL = re.compile(r"https?://[^\s<>\\`]+\Z")


def _literal(text: str) -> str:
    text = _INLINE.sub(r"\\\1", text)
    return _UNDERSCORE.sub(r"\\_", text)


def escape_inline(text: str) -> str:
    """Make a single-line field literal inside a heading, list item, paragraph or
    table cell: line breaks become spaces, Markdown syntax is escaped."""
    return _literal(" ".join(_LINE_BREAK.sub(" ", text).split()))


def escape_line(text: str) -> str:
    """A single-line field that starts a line of its own: as :func:`escape_inline`,
    and a leading heading, list or rule marker is escaped too."""
    return _LINE_START.sub(_escape_start, escape_inline(text))


def _escape_start(match: re.Match) -> str:
    token = match[1]
    return token + "\\" if token[0].isdigit() else "\\" + token


def escape_text(text: str) -> str:
    """Escape one paragraph of applicant text, keeping its line breaks.

    Lines are stripped (leading blanks would make a code block) and joined with a
    backslash hard break."""
    lines = [
        _LINE_START.sub(_escape_start, _literal(line.strip()))
        for line in _LINE_BREAK.split(text)
    ]
    return "\\\n".join(line for line in lines if line)


def _not_filled() -> str:
    return "_" + _("Not filled in.") + "_"


def paragraphs(text: str) -> str:
    """Applicant paragraphs as Markdown (blank-line separated, breaks kept)."""
    if not text.strip():
        return _not_filled()
    blocks = [block for block in re.split(r"\n\s*\n", text) if block.strip()]
    return "\n\n".join(escape_text(block) for block in blocks)


def reference(text: str) -> str:
    """An http(s) URL as an autolink; anything else as literal text."""
    if _URL.match(text):
        return f"<{text}>"
    return escape_inline(text)


def table(t: FigureTable) -> str:
    head = "| " + " | ".join(escape_inline(h) for h in t.headers) + " |"
    rule = "|" + "|".join("---:" if a == "r" else "---" for a in t.align) + "|"
    rows = list(t.rows) + ([t.footer] if t.footer else [])
    body = []
    for i, row in enumerate(rows):
        cells = [escape_inline(c) for c in row]
        if t.footer and i == len(rows) - 1:
            cells = [f"**{c}**" if c else "" for c in cells]
        body.append("| " + " | ".join(cells) + " |")
    return "\n".join([head, rule, *body])


def fenced(text: str) -> str:
    """``text`` verbatim in a fenced block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _finding_rows(findings: tuple[FindingLine, ...]) -> str:
    columns = (_("Severity"), _("Rule"), _("Where"), _("What to do"))
    head = "| " + " | ".join(columns) + " |\n|---|---|---|---|"
    rows = [
        f"| {f.severity_label} | {escape_inline(f.code)} "
        f"| {escape_inline(f.where)} | {escape_inline(' '.join(f.message.split()))} |"
        for f in findings
    ]
    return "\n".join([head, *rows])


def render(summary: Summary, *, chart_png: bytes | None = None) -> str:
    """The whole proposal as Markdown; ``chart_png`` is embedded as a data URL."""
    s = summary
    out = [f"# {escape_inline(s.title)}", ""]
    meta = _("{version}, exported on {date}").format(version=s.version, date=s.date)
    if s.status:
        meta += " (" + _("status: {status}").format(status=escape_inline(s.status))
        meta += ")"
    out += [meta + ".", ""]
    out += [f"- **{label}:** {escape_inline(value)}" for label, value in s.organisation]
    out += ["", "## " + _("Assessment summary"), ""]
    out += [f"- **{label}:** {escape_inline(value)}" for label, value in s.assessment]
    if s.reasons:
        out += ["", _("Why this tier is recommended:"), ""]
        out += [f"- {escape_inline(reason)}" for reason in s.reasons]
    if s.energy_assumptions:
        out += ["", _("Assumptions behind the energy estimate:"), ""]
        out += [f"- {escape_inline(a)}" for a in s.energy_assumptions]
    out += ["", "## " + _("Findings ({counts})").format(counts=s.counts), ""]
    out.append(_finding_rows(s.findings) if s.findings else _("No findings."))
    out += ["", f"## {section_title('selection')}", ""]
    for block in s.selection:
        value = paragraphs(block.text) if block.text else _not_filled()
        out += [f"**{block.label}**", "", value, ""]
    out += [f"## {section_title('codes')}", ""]
    if not s.codes:
        out += ["_" + _("No code entry yet.") + "_", ""]
    for code in s.codes:
        role = _("Role: {role}.").format(role=code.role)
        out += [f"### {escape_inline(code.heading)}", "", role, ""]
        out += ["**" + _("References") + "**", ""]
        if code.references:
            out += [f"- {reference(ref)}" for ref in code.references]
        else:
            out.append("_" + _("None given.") + "_")
        description = "**" + _("Description") + "**"
        out += ["", description, "", paragraphs(code.description), ""]
    figs = s.figures
    out += [f"## {section_title('scalability')}", "", paragraphs(s.narrative), ""]
    if figs.workload:
        out += [escape_line(figs.workload), ""]
    if figs.job_table:
        out += [f"### {TABLE_BY_KIND['jobs'].title}", "", table(figs.job_table), ""]
        out += [escape_line(figs.job_note), ""]
    if figs.scaling:
        out += ["### " + _("Scaling"), ""]
    for scaling in figs.scaling:
        caption = f"**{escape_inline(scaling.caption)}**"
        if scaling.hardware:
            hardware = escape_inline(scaling.hardware)
            caption += " (" + _("measured on {hardware}").format(hardware=hardware)
            caption += ")"
        out += [caption, "", table(scaling.table), ""]
    if figs.projection:
        out += [escape_line(figs.projection), ""]
    if s.kit:
        out += ["### " + _("Scaling kit"), ""]
        out += [f"- {escape_inline(line)}" for line in s.kit]
        out.append("")
    if chart_png:
        data = base64.b64encode(chart_png).decode("ascii")
        alt = _("Scaling efficiency chart")
        out += [f"![{alt}](data:image/png;base64,{data})", ""]
    if figs.sources:
        out += [f"### {_(SOURCES_TITLE)}", ""]
        for source in figs.sources:
            out += [f"**{escape_inline(source.label)}**", "", fenced(source.text), ""]
    if figs.schedule_table:
        title = TABLE_BY_KIND["schedule"].title
        out += [f"### {title}", "", table(figs.schedule_table), ""]
        if figs.schedule_note:
            out += [escape_line(figs.schedule_note), ""]
    out += [f"## {section_title('optimisation')}", "", paragraphs(s.optimisation), ""]
    if s.review:
        out += ["## " + _("Technical assessment (support staff)"), ""]
        out += [f"- **{label}:** {escape_text(value)}" for label, value in s.review]
        out.append("")
    return "\n".join(out)
