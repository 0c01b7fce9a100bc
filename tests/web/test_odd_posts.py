"""Odd input found by a fuzz run (issue 20) answers with a refusal that says what is
wrong, never a server error: a deeply nested ``bases``, an integer of more than 308
digits in a proposal file, a NUL in the "copy for another system" form. These run on
PostgreSQL too (``DATABASE_URL``), where a NUL in a query used to be a 500."""

import json

import pytest
from django.urls import reverse

from proposals.models import Proposal
from tests.web.test_import_json import IMPORT, example, upload
from tests.web.test_wizard import HX, row_url, selection_data, step_url

pytestmark = pytest.mark.django_db

NESTED = "[" * 100_000


def _unchanged(proposal) -> None:
    before = proposal.revision
    proposal.refresh_from_db()
    assert proposal.revision == before
    assert proposal.libraries != "typed with odd bases"


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_deeply_nested_bases_on_the_wizard_is_a_bad_request(
    user_client, proposal, headers
):
    data = selection_data(proposal, libraries="typed with odd bases", bases=NESTED)
    if not headers:
        data.pop("autosave")
        data["save"] = "1"
    response = user_client.post(step_url(proposal, "selection"), data, headers=headers)
    assert response.status_code == 400
    _unchanged(proposal)


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_deeply_nested_bases_on_a_row_button_is_a_bad_request(
    user_client, proposal, headers
):
    url = row_url(proposal, "scalability", "jobs", "add")
    response = user_client.post(url, {"bases": NESTED}, headers=headers)
    assert response.status_code == 400
    assert not proposal.jobs.exists()


def test_deeply_nested_bases_on_the_paste_without_javascript_is_a_bad_request(
    user_client, proposal
):
    url = reverse("proposals:paste", args=[proposal.pk, "jobs"])
    response = user_client.post(
        url,
        {"bases": NESTED, "paste-jobs-text": "Training\t8\t4\t10", "paste_add": "1"},
    )
    assert response.status_code == 400
    assert not proposal.jobs.exists()


def _with_huge_hours(digits: int) -> str:
    text = example("lumi-fast-lane")
    assert '"total_gpu_hours": 18176' in text
    return text.replace(
        '"total_gpu_hours": 18176', f'"total_gpu_hours": {"9" * digits}'
    )


@pytest.mark.parametrize("digits", [309, 400, 5_000])
def test_an_integer_past_float_range_is_refused_by_its_path_on_import(
    user, user_client, digits
):
    response = user_client.post(IMPORT, {"file": upload(_with_huge_hours(digits))})
    assert response.status_code == 200
    page = response.content.decode()
    assert "selection.total_gpu_hours" in page
    assert "must be a finite number" in page
    assert "Nothing was saved" in page
    assert not Proposal.objects.filter(owner=user).exists()


def test_an_integer_past_float_range_is_refused_for_a_new_revision(
    user_client, proposal
):
    url = reverse("proposals:import_json_revision", args=[proposal.pk])
    response = user_client.post(url, {"file": upload(_with_huge_hours(400))})
    assert response.status_code == 200
    assert "selection.total_gpu_hours" in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.revision == 1


def test_a_huge_negative_integer_names_its_path_too(user_client):
    data = json.loads(example("lumi-fast-lane"))
    text = json.dumps(data).replace(
        '"max_gpus_per_job": 32', '"max_gpus_per_job": -' + "1" * 400
    )
    response = user_client.post(IMPORT, {"file": upload(text)})
    assert "selection.max_gpus_per_job" in response.content.decode()


@pytest.mark.parametrize("system", ["\x00", "lumi-g\x00", "\x00leonardo"])
def test_a_nul_in_the_copy_for_another_system_form_is_refused(
    user_client, proposal, system
):
    url = reverse("proposals:retarget_copy", args=[proposal.pk])
    response = user_client.post(url, {"system": system}, follow=True)
    assert response.status_code == 200
    assert "Choose one of the systems listed." in response.content.decode()
    assert Proposal.objects.count() == 1
