"""An applicant opens only their own proposals: anything else is a 404, not a 403."""

import pytest
from django.urls import reverse

from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def foreign(other_user):
    proposal = ProposalFactory(owner=other_user, title="Not yours")
    return {
        "proposal": proposal,
        "code": CodeEntryFactory(proposal=proposal),
        "job": JobTypeFactory(proposal=proposal),
        "measurement": ScalingMeasurementFactory(proposal=proposal),
        "usage": UsageMonthFactory(proposal=proposal),
    }


def owner_urls(objects):
    """Every (method, URL) that shows or changes one proposal or one of its entries."""
    pk = objects["proposal"].pk
    return [
        ("get", reverse("proposals:detail", args=[pk])),
        ("get", reverse("proposals:edit", args=[pk])),
        ("post", reverse("proposals:edit", args=[pk])),
    ]


def test_other_users_proposal_is_404(user_client, foreign):
    for method, url in owner_urls(foreign):
        response = getattr(user_client, method)(url, {"title": "hijack"})
        assert response.status_code == 404, (method, url)
    foreign["proposal"].refresh_from_db()
    assert foreign["proposal"].title == "Not yours"


def test_own_proposal_opens(user_client, proposal):
    response = user_client.get(reverse("proposals:edit", args=[proposal.pk]))
    assert response.status_code == 200
