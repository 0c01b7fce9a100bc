"""Generate the rule reference (``docs/rules.md``) from the findings registry.

Run ``python -m proposals.domain.reference > docs/rules.md`` (and ``--schema >
docs/proposal-format.schema.json`` for the JSON Schema); tests keep the committed
files equal to this output.
"""

from __future__ import annotations

import sys

from .findings import rules
from .jsonformat import schema_text
from .sections import SECTIONS


def markdown() -> str:
    """The rule reference as Markdown: one table per wizard step, in code order."""
    lines = [
        "# Findings: rule reference",
        "",
        "Generated from the rule registry in `proposals/domain/rulebook/` by",
        "`python -m proposals.domain.reference`; do not edit by hand.",
        "",
        "Severities: **error**, the portal application will likely be rejected or",
        "sent back; **warning**, a reviewer will likely ask about it; **info**,",
        "advice. Codes are stable and never renumbered.",
        "",
    ]
    all_rules = rules()
    for section in SECTIONS:
        lines += [
            f"## {section.title}",
            "",
            "| Code | Severity | Rule | When it fires |",
            "|---|---|---|---|",
        ]
        for r in all_rules:
            if r.step == section.slug:
                severity = " / ".join(r.severities)
                lines.append(f"| {r.code} | {severity} | {r.title} | {r.description} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(schema_text() if "--schema" in sys.argv[1:] else markdown())
