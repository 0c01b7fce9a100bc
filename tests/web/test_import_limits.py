"""Imports cost a bounded number of queries however many rows they hold; a checked
revision file waits on the server for its owner's confirmation; the format's text
limits are the wizard's."""

from datetime import timedelta

import pytest
from django.urls import reverse

from proposals import domain, services
from proposals import forms as wizard_forms
from proposals.domain import jsonformat, limits
from proposals.models import JobType, PendingImport, Proposal
from tests.import_data import GREEK, largest, text, with_rows
from tests.web.test_exports import load_demo
from tests.web.test_import_json import IMPORT, upload

# Whatever the number of rows (SQLite splits the largest inserts: at most 999
# parameters a query, so 200 measurements of 10 columns take three).
IMPORT_QUERIES = 11
REVISION_QUERIES = 19
TEN = {"codes": 10, "measurements": 10, "jobs": 10, "schedule": 10}


@pytest.mark.parametrize("rows", [TEN, limits.MAX_ROWS], ids=["10 rows", "max rows"])
def test_an_import_costs_the_same_bounded_queries_for_10_or_the_most_rows(
    user, rows, django_assert_max_num_queries
):
    document = domain.read(text(with_rows(rows)))
    with django_assert_max_num_queries(IMPORT_QUERIES):
        proposal = services.proposal_import(owner=user, document=document)
    assert proposal.jobs.count() == rows["jobs"]
    assert (
        proposal.measurements.filter(code__isnull=False).count() == rows["measurements"]
    )
    with django_assert_max_num_queries(REVISION_QUERIES):
        services.proposal_import_revision(
            proposal=proposal, document=document, expected_revision=1
        )
    assert JobType.objects.filter(proposal=proposal).count() == rows["jobs"]


def test_the_largest_file_uploads_and_one_row_more_is_refused(user, user_client):
    response = user_client.post(IMPORT, {"file": upload(text(largest()))})
    assert response.status_code == 302
    over = with_rows({**limits.MAX_ROWS, "jobs": limits.MAX_ROWS["jobs"] + 1})
    html = user_client.post(IMPORT, {"file": upload(text(over))}).content.decode()
    assert "scalability.jobs" in html and "at most 200 are allowed" in html
    assert Proposal.objects.filter(owner=user).count() == 1


def greek_file() -> bytes:
    description = (GREEK * 400)[: limits.NARRATIVE_CHARS]
    data = text(with_rows({"codes": 40}, description=description))
    assert 1_500_000 < len(data) < limits.MAX_DOCUMENT_BYTES
    return data


def check(client, proposal, data: bytes):
    url = reverse("proposals:import_json_revision", args=[proposal.pk])
    return url, client.post(url, {"file": upload(data)})


def test_a_large_greek_revision_file_can_be_checked_and_confirmed(user, user_client):
    proposal = load_demo("playground", user)
    data = greek_file()
    url, response = check(user_client, proposal, data)
    html = response.content.decode()
    assert "Replace the content of this proposal?" in html
    assert len(html) < 100_000  # the file is not sent back
    token = response.context["token"]
    response = user_client.post(
        url, {"token": token, "revision": "1", "confirm": "yes"}
    )
    assert response.status_code == 302
    proposal.refresh_from_db()
    assert proposal.codes.count() == 40
    assert proposal.codes.first().description.startswith("Εκπαίδευση")
    assert not PendingImport.objects.exists()


def test_another_user_cannot_confirm_someone_elses_token(
    user, user_client, other_user, client
):
    proposal = load_demo("playground", user)
    url, response = check(user_client, proposal, text(with_rows({})))
    token = response.context["token"]
    theirs = load_demo("playground", other_user)
    client.force_login(other_user)
    their_url = reverse("proposals:import_json_revision", args=[theirs.pk])
    response = client.post(
        their_url, {"token": token, "revision": "1", "confirm": "yes"}
    )
    assert "not available" in response.content.decode()
    theirs.refresh_from_db()
    assert theirs.revision == 1 and theirs.title == "Porting a speech model to LUMI-G"
    assert client.post(url, {"token": token, "confirm": "yes"}).status_code == 404


def test_an_expired_token_is_refused_with_a_clear_message(user, user_client):
    proposal = load_demo("playground", user)
    url, response = check(user_client, proposal, text(with_rows({})))
    token = response.context["token"]
    PendingImport.objects.update(
        created_at=PendingImport.objects.get().created_at
        - PendingImport.LIFETIME
        - timedelta(seconds=1)
    )
    response = user_client.post(
        url, {"token": token, "revision": "1", "confirm": "yes"}
    )
    assert "has expired" in response.content.decode()
    assert "Upload it again" in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.revision == 1
    check(user_client, proposal, text(with_rows({})))  # a new check purges it
    assert PendingImport.objects.count() == 1


MODEL_FIELD = {  # JSON path -> (model, field), for the format's text fields
    "title": (Proposal, "title"),
    "organisation.name": (Proposal, "organisation_name"),
    "organisation.vat_number": (Proposal, "vat_number"),
    "selection.libraries": (Proposal, "libraries"),
    "selection.storage_justification": (Proposal, "storage_justification"),
    "selection.transfer_justification": (Proposal, "transfer_justification"),
    "selection.auxiliary_services": (Proposal, "auxiliary_services"),
    "scalability.narrative": (Proposal, "scalability_narrative"),
    "optimisation.narrative": (Proposal, "optimisation_narrative"),
}


def _text_fields(shape, prefix=""):
    for field in shape.fields:
        path = f"{prefix}{field.name}"
        if field.shape is not None:
            yield from _text_fields(field.shape, f"{path}.")
        elif field.max_length is not None:
            yield path, field.max_length


def test_the_format_limits_are_the_wizard_form_limits(proposal):
    forms = {}
    for form_class in (
        wizard_forms.OrganisationForm,
        wizard_forms.SelectionForm,
        wizard_forms.ScalabilityForm,
        wizard_forms.OptimisationForm,
    ):
        forms.update(form_class(instance=proposal).fields)
    assert {"title", "scalability_narrative", "optimisation_narrative"} <= set(forms)
    limits_by_path = dict(_text_fields(jsonformat.PROPOSAL))
    for path, (model, name) in MODEL_FIELD.items():
        assert limits_by_path[path] == model._meta.get_field(name).max_length
        if name in forms:
            assert forms[name].max_length == limits_by_path[path], path
    assert limits_by_path["scalability.narrative"] == limits.NARRATIVE_CHARS
