"""Delete, archive and duplicate a proposal from the applicant's list."""

from decimal import Decimal

import pytest
from django.urls import reverse

from proposals import domain, services
from proposals.assess import proposal_to_domain, with_children
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
)

pytestmark = pytest.mark.django_db
LIST = reverse("proposals:list")
ARCHIVED = f"{LIST}?show=archived"


def test_delete_asks_first_and_removes_a_never_sent_proposal(user_client, user):
    proposal = ProposalFactory(owner=user, title="Short-lived")
    JobTypeFactory(proposal=proposal)
    url = reverse("proposals:delete", args=[proposal.pk])
    page = user_client.get(url)
    assert "Delete “Short-lived”?" in page.text
    assert "This cannot be undone." in page.text
    assert "Archive instead" in page.text  # not yet archived
    assert Proposal.objects.filter(pk=proposal.pk).exists()  # GET deletes nothing
    response = user_client.post(url)
    assert response.headers["Location"] == LIST
    assert not Proposal.objects.filter(pk=proposal.pk).exists()
    assert not JobType.objects.exists()
    assert "“Short-lived” was deleted." in user_client.get(LIST).text


def test_a_proposal_sent_for_review_is_kept_for_staff(
    submitted, user_client, client, staff_user
):
    url = reverse("proposals:delete", args=[submitted.pk])
    assert "the support staff keep the revisions" in user_client.get(url).text
    page = user_client.post(url, follow=True)
    assert "The support staff keep the copy you sent them." in page.text
    submitted.refresh_from_db()
    assert submitted.deleted_at is not None
    # Gone for its owner, everywhere ...
    assert f"{submitted.title}</a>" not in user_client.get(LIST).text
    assert f"{submitted.title}</a>" not in user_client.get(ARCHIVED).text
    for name in ("proposals:detail", "proposals:review_status", "proposals:delete"):
        assert user_client.get(reverse(name, args=[submitted.pk])).status_code == 404
    step = reverse("proposals:step", args=[submitted.pk, "organisation"])
    assert user_client.get(step).status_code == 404
    # ... while staff still open it.
    client.force_login(staff_user)
    staff_page = client.get(reverse("proposals:staff_review", args=[submitted.pk]))
    assert staff_page.status_code == 200


def test_archive_moves_a_proposal_out_of_the_list_and_back(user_client, user):
    proposal = ProposalFactory(owner=user, title="Filed away")
    revision, updated = proposal.revision, proposal.updated_at
    url = reverse("proposals:archive", args=[proposal.pk])
    assert user_client.get(url).status_code == 405  # a change needs a POST
    user_client.post(url, {"archived": "1"})
    assert "Filed away</a>" not in user_client.get(LIST).text
    assert "Filed away</a>" in user_client.get(ARCHIVED).text
    proposal.refresh_from_db()
    assert (proposal.revision, proposal.updated_at) == (revision, updated)
    response = user_client.post(url, {"archived": "0"})
    assert response.headers["Location"] == ARCHIVED
    assert "Filed away</a>" in user_client.get(LIST).text
    assert "Filed away</a>" not in user_client.get(ARCHIVED).text


def test_duplicate_copies_every_value_and_row_under_a_new_title(user_client, user):
    original = ProposalFactory(
        owner=user,
        title="Vision model",
        total_gpu_hours=Decimal("12000"),
        scalability_narrative="Measured on LUMI-G.",
        status=Proposal.Status.CHANGES_REQUESTED,
    )
    main = CodeEntryFactory(proposal=original, name="PyTorch")
    other = CodeEntryFactory(proposal=original, name="DALI", role="preprocessing")
    ScalingMeasurementFactory(proposal=original, code=main, gpus=4)
    ScalingMeasurementFactory(proposal=original, code=other, gpus=8, mfu_pct=41)
    ScalingMeasurementFactory(proposal=original, code=None, gpus=None)  # incomplete
    JobTypeFactory(proposal=original, title="Pre-training", hours=Decimal("24"))
    UsageMonthFactory(proposal=original, activity="Set-up")
    url = reverse("proposals:duplicate", args=[original.pk])
    assert 'value="Copy of Vision model"' in user_client.get(url).text

    response = user_client.post(url, {"title": "Vision model, second call"})
    copy = Proposal.objects.get(title="Vision model, second call")
    assert response.headers["Location"] == copy.get_absolute_url()
    assert (copy.owner, copy.status, copy.revision) == (user, "draft", 1)

    def content(proposal):
        document = proposal_to_domain(
            with_children(Proposal.objects.filter(pk=proposal.pk)).get()
        )
        return domain.dumps(document).replace(proposal.title, "TITLE")

    assert content(copy) == content(original)
    # The measurements point at the copy's own code entries, not the original's.
    copied = ScalingMeasurement.objects.filter(proposal=copy).order_by("position")
    assert [m.code and m.code.name for m in copied] == ["PyTorch", "DALI", None]
    assert {m.code.proposal_id for m in copied if m.code} == {copy.pk}
    assert CodeEntry.objects.filter(proposal=original).count() == 2
    assert UsageMonth.objects.filter(proposal=copy).count() == 1


def test_duplicate_needs_a_title(user_client, proposal):
    url = reverse("proposals:duplicate", args=[proposal.pk])
    response = user_client.post(url, {"title": ""})
    assert response.status_code == 200
    assert "This field is required." in response.text
    assert Proposal.objects.count() == 1


@pytest.mark.parametrize("name", ["delete", "archive", "duplicate"])
def test_nobody_else_may_touch_a_proposal(client, other_user, proposal, name):
    client.force_login(other_user)
    url = reverse(f"proposals:{name}", args=[proposal.pk])
    assert client.post(url, {"title": "Mine now"}).status_code == 404
    proposal.refresh_from_db()
    assert proposal.deleted_at is None and proposal.archived_at is None
    assert Proposal.objects.count() == 1


def test_services_keep_the_rule_of_review(submitted):
    """The service, not only the view, decides what staff keep."""
    assert services.proposal_delete(proposal=submitted) is True
    assert Proposal.objects.filter(pk=submitted.pk).exists()
