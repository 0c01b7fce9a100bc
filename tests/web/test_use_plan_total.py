"""SCAL-3 ("the request and the job plan disagree") has an action beside it, "Use
the job plan's total": a write through a service against the total the page
showed, acknowledged only once it is stored."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from proposals.models import Membership, Proposal
from tests.factories import JobTypeFactory, UserFactory

pytestmark = pytest.mark.django_db


def step(proposal, slug="selection"):
    return reverse("proposals:step", args=[proposal.pk, slug])


def action_form(page: str) -> dict:
    (form,) = re.findall(
        r'<form method="post" action="([^"]+)"[^>]*data-testid="finding-action-SCAL-3"'
        r'.*?name="base" value="([^"]*)".*?name="step" value="([^"]*)"',
        page,
        re.S,
    )
    return {"url": form[0], "base": form[1], "step": form[2]}


@pytest.fixture
def disagreeing(proposal):
    JobTypeFactory(proposal=proposal, gpus=8, hours=Decimal("4.5"), count=100)
    assert proposal.total_gpu_hours == Decimal("4000")  # the plan adds up to 3,600
    return proposal


def test_the_finding_offers_the_job_plan_s_total_and_stores_it(
    user_client, disagreeing
):
    page = user_client.get(step(disagreeing)).content.decode()
    assert "SCAL-3" in page
    form = action_form(page)
    assert (form["base"], form["step"]) == ("4000", "selection")
    response = user_client.post(
        form["url"], {"base": form["base"], "step": form["step"]}, follow=True
    )
    disagreeing.refresh_from_db()
    assert disagreeing.total_gpu_hours == Decimal("3600")
    assert response.redirect_chain[-1][0].endswith("/selection/#id_total_gpu_hours")
    page = response.content.decode()
    assert "Stored: the total GPU-hours are now 3,600" in page
    assert 'data-testid="finding-action-SCAL-3"' not in page  # the finding is gone


def test_a_total_changed_elsewhere_is_not_replaced_nor_said_stored(
    user_client, disagreeing
):
    form = action_form(user_client.get(step(disagreeing)).content.decode())
    Proposal.objects.filter(pk=disagreeing.pk).update(total_gpu_hours=5000)
    response = user_client.post(
        form["url"], {"base": form["base"], "step": "selection"}, follow=True
    )
    disagreeing.refresh_from_db()
    assert disagreeing.total_gpu_hours == Decimal("5000")
    page = response.content.decode()
    assert "Stored:" not in page
    assert "changed elsewhere (now 5,000)" in page


def test_a_viewer_cannot_use_it(client, disagreeing):
    viewer = UserFactory()
    Membership.objects.create(
        proposal=disagreeing, user=viewer, role="viewer", since=timezone.now()
    )
    client.force_login(viewer)
    url = reverse("proposals:use_plan_total", args=[disagreeing.pk])
    assert client.post(url, {"base": "4000"}).status_code == 403
    disagreeing.refresh_from_db()
    assert disagreeing.total_gpu_hours == Decimal("4000")


def test_the_button_posts_by_htmx_and_the_page_loads_the_step_again(
    user_client, disagreeing
):
    page = user_client.get(step(disagreeing)).content.decode()
    form = action_form(page)
    assert f'hx-post="{form["url"]}"' in page
    response = user_client.post(
        form["url"], {"base": form["base"], "step": "selection"}, HTTP_HX_REQUEST="true"
    )
    assert response["HX-Redirect"].endswith("/selection/?stored=1#id_total_gpu_hours")
    disagreeing.refresh_from_db()
    assert disagreeing.total_gpu_hours == Decimal("3600")
