"""One evaluation per request (proposals/evaluation.py): the wizard, the staff
review page and the exports each read, convert and assess a proposal once; the
staff page serialises it once; the page that sends a proposal for review draws no
chart it does not show."""

import pytest
from django.test import Client
from django.urls import reverse

from proposals import domain, services
from proposals.domain import jsonformat
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    cluster,
)
from tests.web.test_live import page_data

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


@pytest.fixture
def full(user):
    proposal = ProposalFactory(owner=user, system=cluster(), total_gpu_hours=5000)
    code = CodeEntryFactory(proposal=proposal, position=0)
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280)]):
        ScalingMeasurementFactory(
            proposal=proposal,
            code=code,
            gpus=gpus,
            throughput=throughput,
            position=position,
        )
    JobTypeFactory(proposal=proposal, position=0)
    return proposal


@pytest.fixture
def counted(monkeypatch):
    """How often a request assesses a proposal and serialises it to JSON."""
    calls = {"assess": 0, "dump": 0}
    assess, dump = domain.assess, jsonformat.dump

    def counting_assess(*args, **kwargs):
        calls["assess"] += 1
        return assess(*args, **kwargs)

    def counting_dump(*args, **kwargs):
        calls["dump"] += 1
        return dump(*args, **kwargs)

    monkeypatch.setattr(domain, "assess", counting_assess)
    monkeypatch.setattr(jsonformat, "dump", counting_dump)
    return calls


def test_an_autosave_assesses_once(user_client, full, counted):
    data = page_data(full, "scalability", scalability_narrative="Once.")
    url = reverse("proposals:step", args=[full.pk, "scalability"])
    assert user_client.post(url, data, headers=HX).status_code == 200
    assert counted["assess"] == 1


def test_the_staff_page_assesses_and_serialises_once(full, staff_user, counted):
    services.review_submit(proposal=full, user=full.owner, note="")
    staff = Client()
    staff.force_login(staff_user)
    counted.update(assess=0, dump=0)
    response = staff.get(reverse("proposals:staff_review", args=[full.pk]))
    assert response.status_code == 200
    assert 'id="live-chart"' in response.content.decode()
    assert (counted["assess"], counted["dump"]) == (1, 1)


def test_an_export_assesses_once(user_client, full, counted):
    url = reverse("proposals:export_markdown", args=[full.pk])
    assert user_client.get(url).status_code == 200
    assert counted["assess"] == 1


def test_sending_for_review_draws_no_chart(user_client, full, monkeypatch):
    from proposals import charts

    def no_drawing(*args, **kwargs):
        raise AssertionError("the send page shows no chart")

    monkeypatch.setattr(charts, "cached_chart", no_drawing)
    response = user_client.get(reverse("proposals:review_send", args=[full.pk]))
    assert response.status_code == 200
    assert "review" in response.content.decode()
