"""A refused technical assessment shows staff its problems, each once and where it
belongs, and nothing of the page's machinery (issue 20: ``dict_items([...])`` was
shown above the checklist whenever the checklist itself had no problem)."""

import re

import pytest

from proposals.domain import technical_review as tr
from proposals.models import TechnicalAssessment
from tests.web.test_technical_assessment import assess

pytestmark = pytest.mark.django_db

CHECKLIST_PROBLEM = "Choose at least one finding to ask a change for."


@pytest.mark.parametrize(
    "data",
    [
        {"action": "record"},
        {"outcome": tr.FEASIBLE, "decision-1": tr.WAIVED, "action": "record"},
        {"outcome": tr.FEASIBLE_WITH_CONDITIONS, "action": "record"},
        {"outcome": "", "action": "request_changes"},
    ],
)
def test_a_refused_assessment_shows_only_its_problems(
    client, staff_user, submitted, data
):
    client.force_login(staff_user)
    response = assess(client, submitted, **data)
    assert response.status_code == 422
    page = response.text
    assert "dict_items" not in page and "dict_values" not in page
    assert "The assessment was not recorded" in page
    shown = re.findall(r'id="checklist-problem">([^<]*)<', page)
    expected = [CHECKLIST_PROBLEM] if data["action"] == "request_changes" else []
    assert shown == expected


@pytest.mark.parametrize(
    "data",
    [
        {"outcome": tr.FEASIBLE, "action": "record", "text": "Fine\x00"},
        {
            "outcome": tr.FEASIBLE,
            "action": "record",
            "decision-1": tr.WAIVED,
            "reason-1": "Not\x00needed",
        },
    ],
    ids=["text", "reason"],
)
def test_a_nul_in_an_assessment_is_refused_not_a_server_error(
    client, staff_user, submitted, data
):
    """PostgreSQL refuses a NUL in text and in JSON: it used to be a 500 there."""
    client.force_login(staff_user)
    response = assess(client, submitted, **data)
    assert response.status_code == 422
    assert tr.NUL_PROBLEM in response.text
    assert not TechnicalAssessment.objects.exists()
