"""Canned replies: the help desk's reply templates and their placeholders.

A template's text names a proposal's figures in braces (``{applicant}``,
``{gpu_hours}``); they are filled when a staff member inserts the reply into a
comment, in that staff member's language and number format. A brace that names
no placeholder is refused when the template is saved, so a typo never reaches an
applicant as ``{aplicant}``.
"""

import re

# Every placeholder a canned reply may use, in the order the admin lists them.
PLACEHOLDERS = (
    "applicant",
    "title",
    "organisation",
    "tier",
    "system",
    "gpu_hours",
    "next_cutoff",
)
_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def unknown_placeholders(text: str) -> list[str]:
    """The names in braces in ``text`` that are not placeholders, in order, once."""
    seen: list[str] = []
    for name in _NAME.findall(text):
        if name not in PLACEHOLDERS and name not in seen:
            seen.append(name)
    return seen


def braced(names) -> str:
    """``names`` as written in a template: ``{applicant}, {title}``."""
    return ", ".join("{" + name + "}" for name in names)


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with each placeholder replaced by its value from ``values``; a
    placeholder without a value is left as written, for the staff member to see
    and complete before sending."""

    def value(match: re.Match) -> str:
        found = values.get(match.group(1))
        return match.group(0) if found in (None, "") else str(found)

    return _NAME.sub(value, text)
