"""A proposal's team in the rest of the applicant's life: the list of proposals,
the mail of the team, account deletion and the JSON format (issue 31)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from proposals.models import Membership
from tests.factories import ProposalFactory, UserFactory

pytestmark = pytest.mark.django_db
LIST = reverse("proposals:list")


def join(proposal, user, role="editor", since=None):
    return Membership.objects.create(
        proposal=proposal, user=user, role=role, since=since or timezone.now()
    )


# --------------------------------------------------------------------------------------
# The proposal list
# --------------------------------------------------------------------------------------


def _item(html, title):
    """The list item of the proposal ``title``."""
    start = html.index(f">{title}</a>")
    start = html.rindex("<li", 0, start)
    return html[start : html.index("</li>", start)]


def test_the_list_marks_shared_proposals_and_offers_what_the_role_allows(
    user, user_client
):
    owner = UserFactory(username="ann", first_name="Ann", last_name="Owner")
    own = ProposalFactory(owner=user, title="Mine")
    edited = ProposalFactory(owner=owner, title="Edited together")
    viewed = ProposalFactory(owner=owner, title="Only read")
    join(edited, user, "editor")
    join(viewed, user, "viewer")
    ProposalFactory(owner=owner, title="Not shared")

    html = user_client.get(LIST).text

    assert "Not shared" not in html
    mine = _item(html, "Mine")
    assert "Shared with you" not in mine
    for action in ("proposals:duplicate", "proposals:archive", "proposals:delete"):
        assert reverse(action, args=[own.pk]) in mine
    editor = _item(html, "Edited together")
    assert "Shared with you by Ann Owner · your role: Editor" in editor
    assert reverse("proposals:duplicate", args=[edited.pk]) in editor
    assert reverse("proposals:archive", args=[edited.pk]) not in editor
    assert reverse("proposals:delete", args=[edited.pk]) not in editor
    viewer = _item(html, "Only read")
    assert "Shared with you by Ann Owner · your role: Viewer" in viewer
    assert "proposal-actions" not in viewer
    for action in ("proposals:duplicate", "proposals:archive", "proposals:delete"):
        assert reverse(action, args=[viewed.pk]) not in viewer


def test_the_list_reads_shared_proposals_in_a_fixed_number_of_queries(
    user, user_client
):
    def shared(count):
        for n in range(count):
            proposal = ProposalFactory(owner=UserFactory(first_name=f"Owner{n}"))
            join(proposal, user, "viewer" if n % 2 else "editor")
        with CaptureQueriesContext(connection) as queries:
            html = user_client.get(LIST).text
        return html, len(queries)

    html, one = shared(1)
    assert html.count('data-testid="shared-with-you"') == 1
    html, six = shared(5)
    assert html.count('data-testid="shared-with-you"') == 6
    assert six == one  # the owners come with the proposals, not one query each
