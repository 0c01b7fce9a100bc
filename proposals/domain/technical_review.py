"""The technical assessment of one revision: an outcome, a checklist made from the
open findings (each accepted as a condition, waived with a reason, or turned into a
change request) and a short text; and the change-request note composed from it.

Pure Python. The checklist items are plain dicts so that the record stores them as
JSON: ``{"code", "field", "where", "severity", "message", "decision", "reason"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .i18n import Labels, gettext, gettext_noop
from .numbers import grouped

FEASIBLE = "feasible"
FEASIBLE_WITH_CONDITIONS = "feasible_with_conditions"
NOT_FEASIBLE = "not_feasible"
OUTCOMES: Labels = Labels(
    {
        FEASIBLE: gettext_noop("Feasible"),
        FEASIBLE_WITH_CONDITIONS: gettext_noop("Feasible with conditions"),
        NOT_FEASIBLE: gettext_noop("Not feasible"),
    }
)

OPEN = ""  # not decided yet
CONDITION = "condition"
WAIVED = "waived"
CHANGE_REQUEST = "change_request"
DECISIONS: Labels = Labels(
    {
        OPEN: gettext_noop("Open"),
        CONDITION: gettext_noop("Accept as a condition"),
        WAIVED: gettext_noop("Waive, with a reason"),
        CHANGE_REQUEST: gettext_noop("Ask for a change"),
    }
)

MAX_TEXT = 4000
MAX_REASON = 500
# Conditions the staff add themselves, not tied to a finding.
OWN_CONDITION = "Staff condition"
MAX_OWN_CONDITIONS = 5


def checklist(findings: Iterable[Mapping], where: Mapping[int, str]) -> list[dict]:
    """One open item per finding (stored revision findings as dicts); ``where``
    maps a finding's position to the place it points at as people read it."""
    return [
        {
            "code": f.get("code", ""),
            "field": f.get("field", ""),
            "where": where.get(i, ""),
            "severity": f.get("severity", ""),
            "message": f.get("message", ""),
            "decision": OPEN,
            "reason": "",
        }
        for i, f in enumerate(findings)
    ]


def reworded(findings: Iterable[Mapping], fresh: Iterable) -> list[dict]:
    """The stored ``findings`` (dicts, recorded in the portal's form) with each
    message as ``fresh`` (the same revision assessed again, with the reader's
    conventions active) words it: matched on rule code, field and severity, in
    order. A stored finding the fresh assessment does not give (the catalogue or
    the rules changed since) keeps its recorded message."""
    waiting: dict[tuple, list[str]] = {}
    for finding in fresh:
        key = (finding.code, finding.field, finding.severity)
        waiting.setdefault(key, []).append(finding.message)
    out = []
    for stored in findings:
        key = (stored.get("code"), stored.get("field"), stored.get("severity"))
        messages = waiting.get(key)
        message = messages.pop(0) if messages else stored.get("message", "")
        out.append({**stored, "message": message})
    return out


def with_decisions(items: list[dict], decisions: Mapping[int, tuple[str, str]]):
    """``items`` with the ``(decision, reason)`` chosen for item ``i``."""
    out = []
    for i, item in enumerate(items):
        decision, reason = decisions.get(i, (OPEN, ""))
        out.append({**item, "decision": decision, "reason": reason.strip()})
    return out


# A NUL character cannot be stored (PostgreSQL refuses it in text and JSON).
NUL = "\x00"
NUL_PROBLEM = gettext_noop(
    "Remove the null character (an invisible control character)."
)


def own_conditions(texts: Iterable[str]) -> list[dict]:
    """Checklist items for the staff's own conditions (blank ones left out)."""
    return [
        {
            "code": OWN_CONDITION,
            "field": "",
            "where": "",
            "severity": "",
            "message": text.strip(),
            "decision": CONDITION,
            "reason": "",
            "own": True,
        }
        for text in texts
        if text.strip()
    ]


def split_own(items: list[dict]) -> tuple[list[dict], list[str]]:
    """``items`` as (the findings' items, the texts of the staff's own
    conditions)."""
    return (
        [item for item in items if not item.get("own")],
        [item["message"] for item in items if item.get("own")],
    )


def problems(
    outcome: str, items: list[dict], *, requesting_changes: bool
) -> dict[str, str]:
    """What is wrong with an assessment, as ``{place: message}`` (``"outcome"``,
    ``"checklist"`` or ``"item-<i>"``; never ``"items"``, which a template would
    read as the dict's method); empty when it can be recorded."""
    found: dict[str, str] = {}
    if outcome not in OUTCOMES:
        found["outcome"] = gettext("Choose the outcome of the technical assessment.")
    findings, own = split_own(items)
    if len(own) > MAX_OWN_CONDITIONS:
        found["own"] = gettext("Add at most {most} conditions of your own.").format(
            most=grouped(MAX_OWN_CONDITIONS)
        )
    elif any(len(text) > MAX_REASON for text in own):
        found["own"] = gettext("Keep each condition under {most} characters.").format(
            most=grouped(MAX_REASON)
        )
    for i, item in enumerate(findings):
        if item["decision"] not in DECISIONS:
            found[f"item-{i}"] = gettext("Choose what to do with this finding.")
        elif item["decision"] == WAIVED and not item["reason"]:
            found[f"item-{i}"] = gettext("Say why this finding can be waived.")
        elif len(item["reason"]) > MAX_REASON:
            found[f"item-{i}"] = gettext(
                "Keep the reason under {most} characters."
            ).format(most=grouped(MAX_REASON))
        elif NUL in item["reason"]:
            found[f"item-{i}"] = gettext(NUL_PROBLEM)
    decisions = {item["decision"] for item in items}
    if outcome == FEASIBLE_WITH_CONDITIONS and CONDITION not in decisions:
        found.setdefault(
            "outcome",
            gettext(
                "Accept a finding as a condition or add a condition of your own, or "
                "choose another outcome."
            ),
        )
    if requesting_changes and CHANGE_REQUEST not in decisions:
        found["checklist"] = gettext("Choose at least one finding to ask a change for.")
    return found


def of_decision(items: list[dict], decision: str) -> list[dict]:
    return [item for item in items if item["decision"] == decision]


def concerns_applicant(outcome: str, items: Iterable[Mapping]) -> bool:
    """Whether an assessment asks or limits anything of the applicant: an outcome
    other than feasible, a condition or a change asked for. Otherwise (feasible,
    every finding waived) it is the desk's own, and only the desk hears of it."""
    return outcome != FEASIBLE or any(
        item.get("decision") in (CONDITION, CHANGE_REQUEST) for item in items
    )


def change_request_note(items: list[dict], text: str = "") -> str:
    """The note of "Request changes": the findings chosen for a change, one per
    line with the place they point at, then the assessment text if any."""
    lines = [gettext("Please change the following, then send the proposal again:")]
    for item in of_decision(items, CHANGE_REQUEST):
        where = f" ({item['where']})" if item["where"] else ""
        lines.append(f"- {item['code']}{where}: {item['message']}")
    conditions = of_decision(items, CONDITION)
    if conditions:
        lines.append("")
        lines.append(gettext("Accepted as conditions of the allocation:"))
        lines.extend(
            f"- {item['message']}"
            if item.get("own")
            else f"- {item['code']}: {item['message']}"
            for item in conditions
        )
    if text.strip():
        lines += ["", text.strip()]
    return "\n".join(lines)


def record_rows(
    *, revision: int, outcome: str, text: str, items: list[dict], by: str, on: str
) -> tuple[tuple[str, str], ...]:
    """An assessment as ``(label, value)`` rows for the staff's exports."""

    def listed(decision: str, with_reason: bool = True) -> str:
        parts = []
        for item in of_decision(items, decision):
            part = f"{item['code']}: {item['message']}"
            if with_reason and item["reason"]:
                part += f" ({item['reason']})"
            parts.append(part)
        return "; ".join(parts)

    rows = [
        (
            gettext("Outcome"),
            gettext("{outcome} (revision {revision})").format(
                outcome=OUTCOMES.get(outcome, outcome), revision=revision
            ),
        ),
        (
            gettext("Assessed"),
            gettext("by {by}, {on}").format(by=by, on=on) if by else on,
        ),
    ]
    if text:
        rows.append((gettext("Assessment"), text))
    for label, decision in (
        (gettext("Conditions"), CONDITION),
        (gettext("Changes asked for"), CHANGE_REQUEST),
        (gettext("Waived"), WAIVED),
    ):
        value = listed(decision)
        if value:
            rows.append((label, value))
    return tuple(rows)
