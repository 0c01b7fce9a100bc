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


STEPS = ["organisation", "selection", "codes", "scalability", "optimisation", "review"]


def owner_requests(objects):
    """Every (method, URL, data) that shows or changes a proposal or one of its rows."""
    pk = objects["proposal"].pk
    requests = [
        ("get", reverse("proposals:detail", args=[pk]), {}),
        ("get", reverse("proposals:edit", args=[pk]), {}),
    ]
    for step in STEPS:
        url = reverse("proposals:step", args=[pk, step])
        requests += [
            ("get", url, {}),
            ("post", url, {"autosave": "1", "title": "x"}),
            ("post", url, {"save": "1", "title": "x"}),
        ]
    rows = {
        "codes": objects["code"],
        "jobs": objects["job"],
        "measurements": objects["measurement"],
        "schedule": objects["usage"],
    }
    for kind, row in rows.items():
        step = "codes" if kind == "codes" else "scalability"
        for operation in ("add", "delete", "up"):
            kwargs = {"pk": pk, "step": step, "kind": kind, "operation": operation}
            if operation != "add":
                kwargs["row"] = row.pk
            requests.append(("post", reverse("proposals:row", kwargs=kwargs), {}))
    return requests


@pytest.mark.parametrize("htmx", [False, True])
def test_other_users_proposal_is_404(user_client, foreign, htmx):
    headers = {"HX-Request": "true"} if htmx else {}
    for method, url, data in owner_requests(foreign):
        response = getattr(user_client, method)(url, data, headers=headers)
        assert response.status_code == 404, (method, url, data)
    proposal = foreign["proposal"]
    proposal.refresh_from_db()
    assert proposal.title == "Not yours"
    assert proposal.jobs.count() == proposal.codes.count() == 1


def test_rows_of_another_proposal_are_404_from_own_proposal(
    user_client, proposal, foreign
):
    for kind, operation, row in (
        ("jobs", "delete", foreign["job"]),
        ("measurements", "up", foreign["measurement"]),
        ("schedule", "delete", foreign["usage"]),
    ):
        url = reverse(
            "proposals:row",
            kwargs={
                "pk": proposal.pk,
                "step": "scalability",
                "kind": kind,
                "operation": operation,
                "row": row.pk,
            },
        )
        response = user_client.post(url, {})
        assert response.status_code == 404, url
    assert foreign["proposal"].jobs.count() == 1
    foreign["proposal"].refresh_from_db()
    assert foreign["proposal"].title == "Not yours"


def test_own_proposal_opens(user_client, proposal):
    response = user_client.get(reverse("proposals:edit", args=[proposal.pk]))
    assert response.status_code == 302
    for step in STEPS:
        url = reverse("proposals:step", args=[proposal.pk, step])
        assert user_client.get(url).status_code == 200, step
