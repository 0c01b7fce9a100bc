"""Staff read every export of a proposal sent for review (the draft and each
revision) and the review page shows the proposal the way those exports do.

The permission matrix: the owner reads their own; support staff read (never write)
proposals sent for review; other applicants get 404 everywhere and anonymous users
the login page.
"""

import html
import json
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from proposals.models import Proposal

pytestmark = pytest.mark.django_db

READ_URLS = ["export_portal", "export_markdown", "export_pdf", "export_json"]
WRITE_URLS = [("import_json_revision", "get"), ("import_json_revision", "post")]


def _url(name, proposal, revision=None):
    url = reverse(f"proposals:{name}", args=[proposal.pk])
    return url + (f"?revision={revision}" if revision else "")


@pytest.mark.parametrize("name", READ_URLS)
@pytest.mark.parametrize("revision", [None, 1])
def test_read_matrix(client, user, other_user, staff_user, sent, name, revision):
    url = _url(name, sent, revision)
    response = client.get(url)
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    client.force_login(other_user)
    assert client.get(url).status_code == 404
    # The PDF is handed to the task worker: its progress page answers.
    follow = name == "export_pdf"
    client.force_login(user)
    assert client.get(url, follow=follow).status_code == 200
    client.force_login(staff_user)
    assert client.get(url, follow=follow).status_code == 200


@pytest.mark.parametrize("name", READ_URLS)
def test_staff_404_for_a_draft_never_sent(client, staff_user, applicant_proposal, name):
    client.force_login(staff_user)
    assert client.get(_url(name, applicant_proposal)).status_code == 404


@pytest.mark.parametrize("name", READ_URLS)
def test_unknown_revision_is_404(client, staff_user, sent, name):
    client.force_login(staff_user)
    assert client.get(_url(name, sent, 7)).status_code == 404
    assert client.get(_url(name, sent) + "?revision=x").status_code == 404


@pytest.mark.parametrize("name,method", WRITE_URLS)
def test_staff_never_write(client, staff_user, other_user, sent, name, method):
    before = sent.revision
    for who in (staff_user, other_user):
        client.force_login(who)
        response = getattr(client, method)(_url(name, sent), {"token": "x"})
        assert response.status_code == 404
    sent.refresh_from_db()
    assert sent.revision == before


@pytest.mark.parametrize("step", ["organisation", "selection"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_staff_never_open_the_wizard(client, staff_user, sent, step, method):
    before = (sent.revision, sent.title)
    client.force_login(staff_user)
    url = reverse("proposals:step", args=[sent.pk, step])
    data = {"revision": sent.revision, "title": "Changed by staff"}
    assert getattr(client, method)(url, data).status_code == 404
    sent.refresh_from_db()
    assert (sent.revision, sent.title) == before


def test_file_names_carry_the_review_revision(
    client, staff_user, user, sent, run_tasks
):
    Proposal.objects.filter(pk=sent.pk).update(revision=5)  # five autosaves later
    client.force_login(staff_user)
    response = client.get(_url("export_markdown", sent, 1))
    assert f'filename="proposal-{sent.pk}-r1-' in response["Content-Disposition"]
    from tests.web.test_exports import get_pdf

    response = get_pdf(client, _url("export_pdf", sent), run_tasks)
    today = f"{timezone.localdate():%Y-%m-%d}"
    assert (
        f'filename="proposal-{sent.pk}-draft-{today}-'
        in response["Content-Disposition"]
    )
    assert "-r5-" not in response["Content-Disposition"]  # not the autosave counter
    client.force_login(user)
    response = client.get(_url("export_json", sent, 1))
    assert f'filename="proposal-{sent.pk}-r1-' in response["Content-Disposition"]


def test_revision_export_shows_the_revision_not_the_draft(client, staff_user, sent):
    Proposal.objects.filter(pk=sent.pk).update(title="Renamed in the draft")
    client.force_login(staff_user)
    old = json.loads(client.get(_url("export_json", sent, 1)).content)
    new = json.loads(client.get(_url("export_json", sent)).content)
    assert old["title"] != "Renamed in the draft"
    assert new["title"] == "Renamed in the draft"
    page = client.get(_url("export_portal", sent, 1)).text
    assert "revision 1, as sent for review" in page
    assert "Portal text of r1</li>" in page
    assert "Upload JSON" not in page  # staff never write


def test_review_page_renders_like_the_exports(client, staff_user, sent):
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[sent.pk])).text
    compact = re.sub(r"\s+", " ", page)
    # Tables, not one line per field.
    assert 'data-testid="job-plan-table"' in page
    assert 'data-testid="scaling-table-review"' in page
    assert '<th scope="col" class="text-end">Speedup</th>' in compact
    assert "Efficiency" in page
    # Choice names and numbers with separators; codes by name, never index 0.
    assert "SME" in page or "Startup" in page or "industrial organisation" in page
    assert "AI for Industrial Innovation" in page
    assert "industrial_innovation" not in page
    assert re.search(r"\d{1,3},\d{3}", page)
    assert "Code entry 0" not in page
    # Portal blocks with their character counts.
    assert page.count('data-testid="char-count"') >= 5
    # The applicant's narrative before the generated tables.
    narrative = sent.scalability_narrative.split("\n")[0][:60]
    assert 'data-testid="narrative"' in page and html.escape(narrative) in page
    # Export links for the shown version.
    assert reverse("proposals:export_pdf", args=[sent.pk]) in page


def test_review_page_shows_any_revision(client, staff_user, sent):
    Proposal.objects.filter(pk=sent.pk).update(title="Renamed in the draft")
    client.force_login(staff_user)
    url = reverse("proposals:staff_review", args=[sent.pk])
    assert "Renamed in the draft" in client.get(url).text
    page = client.get(url, {"revision": 1}).text
    assert 'data-testid="shown-revision"' in page
    assert f"{reverse('proposals:export_pdf', args=[sent.pk])}?revision=1" in page
    assert client.get(url, {"revision": 9}).status_code == 404


def test_diff_reads_choice_names_and_code_entries_by_name(client, staff_user, sent):
    from proposals.domain.documents import value_text

    assert (
        value_text("scalability.measurements[0].code", 0, {"codes": ["nordlicht"]})
        == "Code details 1 (nordlicht)"
    )
    old_kind = sent.organisation_kind
    new_kind = "industry" if old_kind != "industry" else "sme"
    Proposal.objects.filter(pk=sent.pk).update(organisation_kind=new_kind)
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[sent.pk])
    page = re.sub(r"\s+", " ", client.get(url, {"a": 1, "b": "current"}).text)
    labels = {k: str(v) for k, v in Proposal.OrganisationKind.choices}  # lazy labels
    assert labels[new_kind] in page and labels[old_kind] in page
    assert f">{old_kind}<" not in page and f">{new_kind}<" not in page
