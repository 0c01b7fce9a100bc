"""The technical assessment's form on the staff review page: the checklist of the
latest revision's findings (with the decisions of the previous assessment of that
revision), the staff's own conditions, and the rows the template shows."""

from __future__ import annotations

from proposals.domain import technical_review
from proposals.domain.fields import describe_path, row_names


def assessment_checklist(latest, previous=None, *, source=None) -> list[dict]:
    """The checklist of the latest revision's findings, with the decisions of the
    previous assessment of that revision when there is one (matched on rule code
    and field). With ``source`` (the revision assessed again, for the page) the
    messages are worded as the reader reads them (their number format), not as
    recorded (the portal's form)."""
    names = row_names(latest.snapshot)
    findings = latest.findings
    if source is not None:
        findings = technical_review.reworded(findings, source.assessment.findings)
    where = {
        i: describe_path(f.get("field", ""), names) for i, f in enumerate(findings)
    }
    items = technical_review.checklist(findings, where)
    if previous is not None:
        decided = {(i["code"], i["field"]): i for i in previous.items}
        for item in items:
            old = decided.get((item["code"], item["field"]))
            if old:
                item.update(decision=old["decision"], reason=old["reason"])
    return items


def assessment_form_initial(latest, previous, source) -> dict:
    """The form as the page first shows it: the previous assessment of the latest
    revision, if any, over the checklist worded for ``source``'s reader."""
    return {
        "outcome": previous.outcome if previous else "",
        "text": previous.text if previous else "",
        "items": assessment_checklist(latest, previous, source=source),
        "own_conditions": (
            technical_review.split_own(previous.items)[1] if previous else []
        ),
        "problems": {},
    }


def add_form_rows(assessment_form: dict) -> None:
    """Add the rows the template shows: the staff's own conditions and a blank one
    to add (up to the limit), and each checklist item with its problem."""
    problems = assessment_form["problems"]
    own = assessment_form["own_conditions"]
    assessment_form["own_rows"] = own + [""] * (
        len(own) < technical_review.MAX_OWN_CONDITIONS
    )
    assessment_form["rows"] = [
        {"index": i, "item": item, "problem": problems.get(f"item-{i}", "")}
        for i, item in enumerate(assessment_form["items"])
    ]
