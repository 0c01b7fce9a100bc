"""The staff's own conditions in the technical assessment's checklist."""

from proposals.domain import technical_review as tr


def finding(code="SCAL-10"):
    return tr.checklist([{"code": code, "message": "Few points", "field": ""}], {})


def test_an_own_condition_is_enough_for_feasible_with_conditions():
    items = finding() + tr.own_conditions(["Report MFU monthly", "   "])
    assert len(items) == 2  # the blank one is left out
    assert (
        tr.problems(tr.FEASIBLE_WITH_CONDITIONS, items, requesting_changes=False) == {}
    )
    assert "outcome" in tr.problems(
        tr.FEASIBLE_WITH_CONDITIONS, finding(), requesting_changes=False
    )


def test_own_conditions_are_limited_and_split_out():
    many = tr.own_conditions([f"c{i}" for i in range(tr.MAX_OWN_CONDITIONS + 1)])
    assert "own" in tr.problems(tr.FEASIBLE, many, requesting_changes=False)
    long = tr.own_conditions(["x" * (tr.MAX_REASON + 1)])
    assert "own" in tr.problems(tr.FEASIBLE, long, requesting_changes=False)
    findings, own = tr.split_own(finding() + tr.own_conditions(["Report MFU"]))
    assert [item["code"] for item in findings] == ["SCAL-10"] and own == ["Report MFU"]


def test_the_change_request_note_lists_own_conditions_as_written():
    items = tr.with_decisions(finding(), {0: (tr.CHANGE_REQUEST, "")})
    note = tr.change_request_note(items + tr.own_conditions(["Report MFU monthly"]))
    assert "- SCAL-10: Few points" in note
    assert "- Report MFU monthly" in note
