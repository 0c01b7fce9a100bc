"""The staff review queue: filters, search, order, pagination and a flat query count."""

import re

import pytest
from django.urls import reverse

from proposals import selectors
from proposals.models import Proposal
from tests.review_data import queue_rows

pytestmark = pytest.mark.django_db


def rows(page: str) -> int:
    return page.count('data-testid="queue-row"')


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


def queue_queries(client, django_assert_num_queries, params, count):
    """Warm the session once, then count the queries of one queue page."""
    client.get(reverse("proposals:review_queue"))
    with django_assert_num_queries(count) as captured:
        response = client.get(reverse("proposals:review_queue"), params)
    assert response.status_code == 200
    return response, captured


@pytest.mark.parametrize(
    "params",
    [{}, {"status": "submitted", "errors": "yes"}, {"q": "user", "show": "all"}],
)
def test_query_count_does_not_grow_with_rows(
    staff_client, catalogue, django_assert_num_queries, params
):
    # session, user, staff group, e-mail verified (banner), system choices, count, the
    # page's keys then its rows (selectors.queue_page), the reader's declared
    # conflicts of interest, the colleagues of the bulk form, the reader's saved views
    expected = 12  # with the reader's preferences (number format, time zone)
    queue_rows(5)
    small, _ = queue_queries(staff_client, django_assert_num_queries, params, expected)
    queue_rows(25, start=5)
    large, _ = queue_queries(staff_client, django_assert_num_queries, params, expected)
    assert rows(large.text) > rows(small.text)


def test_htmx_gets_only_the_results(staff_client, catalogue):
    queue_rows(3)
    response = staff_client.get(
        reverse("proposals:review_queue"),
        {"q": "proposal 1", "show": "all"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="queue-results",
    )
    assert response.text.lstrip().startswith('<div id="queue-results">')
    assert "<nav" not in response.text
    assert rows(response.text) == 1


def test_filters_search_and_order(catalogue):
    queue_rows(30)
    everything = list(selectors.review_queue())
    assert len(everything) == 30
    # Longest waiting first: proposal 29 was submitted 29 minutes ago.
    assert everything[0].proposal.title == "Queue proposal 29"
    recent = selectors.review_queue(order="recent").first()
    assert recent.proposal.title == "Queue proposal 0"
    waiting = selectors.review_queue(statuses=[Proposal.Status.SUBMITTED])
    assert {s.proposal.status for s in waiting} == {Proposal.Status.SUBMITTED}
    assert {
        s.latest_revision.tier for s in selectors.review_queue(tier="fast_lane")
    } == {"fast_lane"}
    lumi = selectors.review_queue(system="lumi-g")
    assert lumi and {s.latest_revision.system.slug for s in lumi} == {"lumi-g"}
    assert all(
        s.latest_revision.error_count for s in selectors.review_queue(has_errors=True)
    )
    assert all(
        not s.latest_revision.error_count
        for s in selectors.review_queue(has_errors=False)
    )
    found = selectors.review_queue(search="org 3")
    assert {s.proposal.organisation_name for s in found} == {"Org 3"}
    assert selectors.review_queue(search="Queue proposal 17").count() == 1


def test_page_shows_the_row_summary_and_paginates(staff_client, catalogue):
    queue_rows(30)
    everything = {"show": "all"}
    first = staff_client.get(reverse("proposals:review_queue"), everything).text
    assert rows(first) == selectors.QUEUE_PAGE_SIZE
    assert "30 proposals" in first and "Page 1 of 2" in first
    second = staff_client.get(
        reverse("proposals:review_queue"), {"page": 2, **everything}
    ).text
    assert rows(second) == 30 - selectors.QUEUE_PAGE_SIZE
    filtered = staff_client.get(
        reverse("proposals:review_queue"),
        {"q": "Queue proposal 4", "tier": "fast_lane", **everything},
    ).text
    # Proposal 4: fast_lane, 5,000 GPU-hours, no error, 4 warnings.
    assert rows(filtered) == 1
    assert "Fast Lane" in filtered and "5,000" in filtered
    assert 'data-label="Errors" class="text-end">0</td>' in filtered
    assert '<span class="badge text-bg-warning">4</span>' in filtered


def test_bad_filter_values_are_ignored(staff_client, catalogue):
    queue_rows(3)
    response = staff_client.get(
        reverse("proposals:review_queue"),
        {"tier": "gigantic", "page": "x", "show": "all"},
    )
    assert response.status_code == 200
    assert rows(response.text) == 3
    assert "The filter \u201cRequested tier\u201d was ignored" in response.text


# --- People search and the applicant column (issue 34) ---------------------------


@pytest.fixture
def people(catalogue):
    """Three proposals in the queue: Olga Virtanen's (with Ben Okafor on its
    team), Ada's, and one whose organisation is called "Virta"."""
    from django.utils import timezone

    from proposals.models import Membership
    from tests.factories import UserFactory

    made = queue_rows(3, owners=3)
    olga, ada, other = (p.owner for p in made)
    for person, first, last, email in (
        (olga, "Olga", "Virtanen", "olga.v@uni-helsinki.example"),
        (ada, "Ada", "Lovelace", "ada@analytical.example"),
        (other, "", "", "x@nowhere.example"),
    ):
        person.first_name, person.last_name, person.email = first, last, email
        person.save()
    ben = UserFactory(
        username="bokafor",
        first_name="Ben",
        last_name="Okafor",
        email="ben@lab.example",
    )
    Membership.objects.create(
        proposal=made[0], user=ben, role="editor", since=timezone.now()
    )
    Proposal.objects.filter(pk=made[2].pk).update(organisation_name="Virta Labs")
    return made


def titles(search: str) -> set[str]:
    return {s.proposal.title for s in selectors.review_queue(search=search)}


def test_search_finds_applicants_and_team_members(people):
    olga_s, ada_s, virta_s = (p.title for p in people)
    assert titles("Olga Virtanen") == {olga_s}  # first and last name together
    assert titles("lovelace") == {ada_s}
    assert titles(people[1].owner.username) == {ada_s}
    assert titles("uni-helsinki") == {olga_s}  # part of an e-mail address
    assert titles("Okafor") == {olga_s}  # a team member
    assert titles("ben@lab.example") == {olga_s}
    assert titles("bokafor") == {olga_s}
    assert titles("Virta") == {olga_s, virta_s}  # a person and an organisation
    assert titles("nobody-by-this-name") == set()
    # Several members matching count the proposal once.
    assert selectors.review_queue(search="example").count() == 3


def test_queue_and_csv_show_who_applied(staff_client, people):
    import csv
    import io

    page = staff_client.get(reverse("proposals:review_queue"), {"q": "Olga"}).text
    assert rows(page) == 1
    assert '<th scope="col">Applicant</th>' in page
    cell = page.split('data-testid="queue-applicant">')[1].split("</td>")[0]
    assert "Olga Virtanen (" in cell and "olga.v@uni-helsinki.example" in cell
    # On its own line on screen, and a word of its own in the page's text (read
    # aloud, copied, searched): not run together with the name.
    said = " ".join(re.sub(r"<[^>]+>", "", cell).split())  # the cell's textContent
    assert said.endswith(") olga.v@uni-helsinki.example"), said
    text = staff_client.get(
        reverse("proposals:review_queue_csv"), {"q": "Okafor"}
    ).content.decode("utf-8-sig")
    header, *found = list(csv.reader(io.StringIO(text)))
    assert len(found) == 1
    row = dict(zip(header, found[0], strict=True))
    assert row["Applicant"].startswith("Olga Virtanen (")
    assert row["Applicant e-mail"] == "olga.v@uni-helsinki.example"
