"""JSON upload: a new proposal, or a new revision after confirmation; every problem
named by its JSON path; nothing half-imported; export -> import -> export identical."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from proposals.models import JobType, Proposal
from tests.web.test_exports import EXAMPLES, load_demo

IMPORT = reverse("proposals:import_json")


def upload(text: str | bytes, name: str = "proposal.json") -> SimpleUploadedFile:
    data = text.encode() if isinstance(text, str) else text
    return SimpleUploadedFile(name, data, content_type="application/json")


def example(name: str) -> str:
    return (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")


def export(client, proposal) -> str:
    url = reverse("proposals:export_json", args=[proposal.pk])
    return client.get(url).content.decode()


def test_upload_page_renders(user_client):
    response = user_client.get(IMPORT)
    assert response.status_code == 200
    assert 'enctype="multipart/form-data"' in response.content.decode()


@pytest.mark.parametrize("name", ["playground", "lumi-fast-lane", "bsc-large-scale"])
def test_upload_creates_a_proposal_and_round_trips(name, user, user_client):
    response = user_client.post(IMPORT, {"file": upload(example(name))})
    assert response.status_code == 302
    proposal = Proposal.objects.get(owner=user)
    assert response["Location"] == proposal.get_absolute_url()
    # export -> import -> export through the views is byte-identical
    first = export(user_client, proposal)
    assert first == example(name)
    user_client.post(IMPORT, {"file": upload(first)})
    second = Proposal.objects.filter(owner=user).exclude(pk=proposal.pk).get()
    assert export(user_client, second) == first


def test_every_problem_is_reported_with_its_path_and_nothing_is_saved(
    user, user_client
):
    data = json.loads(example("lumi-fast-lane"))
    data["selection"]["total_gpu_hours"] = "lots"
    data["scalability"]["jobs"][2]["gpus"] = 1.5
    data["codes"][1]["role"] = "wizardry"
    del data["optimisation"]
    data["extra"] = 1
    response = user_client.post(IMPORT, {"file": upload(json.dumps(data))})
    assert response.status_code == 200
    html = response.content.decode()
    assert "5 problems" in html
    for path in (
        "selection.total_gpu_hours",
        "scalability.jobs[2].gpus",
        "codes[1].role",
        "<code>optimisation</code>",
        "<code>extra</code>",
    ):
        assert path in html
    assert "Nothing was saved" in html
    assert not Proposal.objects.filter(owner=user).exists()


def test_database_limits_are_reported_by_path_and_nothing_is_half_imported(
    user, user_client
):
    data = json.loads(example("lumi-fast-lane"))
    data["selection"]["system"] = "no-such-system"
    # Within the format's bound, beyond the model's decimals (a bound's range is
    # the format's own check: test_format_bounds).
    data["scalability"]["jobs"][3]["hours"] = 1.125
    response = user_client.post(IMPORT, {"file": upload(json.dumps(data))})
    html = response.content.decode()
    assert "selection.system" in html
    assert "scalability.jobs[3].hours" in html
    assert not Proposal.objects.exists()
    assert not JobType.objects.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"[]", "must be an object"),
    ],
)
def test_unreadable_files_are_refused(content, message, user_client):
    response = user_client.post(IMPORT, {"file": upload(content)})
    html = response.content.decode()
    assert message in html
    assert "<code>$</code>" in html
    assert not Proposal.objects.exists()


def test_missing_file_is_asked_for(user_client):
    response = user_client.post(IMPORT, {})
    assert "Choose a file" in response.content.decode()


def test_revision_upload_asks_for_confirmation_then_replaces(user, user_client):
    proposal = load_demo("playground", user)
    url = reverse("proposals:import_json_revision", args=[proposal.pk])
    text = example("lumi-fast-lane")
    response = user_client.post(url, {"file": upload(text)})
    html = response.content.decode()
    assert "Replace the content of this proposal?" in html
    assert "revision 2" in html
    proposal.refresh_from_db()
    assert proposal.title == "Porting a speech model to LUMI-G"  # not yet replaced
    assert proposal.revision == 1
    token = response.context["token"]
    assert f'name="token" value="{token}"' in html
    assert text not in html  # the file stays on the server
    response = user_client.post(
        url, {"token": token, "revision": "1", "confirm": "yes"}
    )
    assert response.status_code == 302
    proposal.refresh_from_db()
    assert proposal.revision == 2
    assert proposal.title == "Defect detection models for paper mills"
    assert Proposal.objects.filter(owner=user).count() == 1
    assert export(user_client, proposal) == text


def test_revision_upload_refuses_a_stale_confirmation(user, user_client):
    proposal = load_demo("playground", user)
    url = reverse("proposals:import_json_revision", args=[proposal.pk])
    response = user_client.post(url, {"file": upload(example("lumi-fast-lane"))})
    token = response.context["token"]
    Proposal.objects.filter(pk=proposal.pk).update(revision=5)  # edited meanwhile
    response = user_client.post(
        url, {"token": token, "revision": "1", "confirm": "yes"}
    )
    html = response.content.decode()
    assert "changed while you were checking" in html
    assert 'name="revision" value="5"' in html
    proposal.refresh_from_db()
    assert proposal.title == "Porting a speech model to LUMI-G"
    response = user_client.post(
        url, {"token": token, "revision": "5", "confirm": "yes"}
    )
    assert response.status_code == 302  # the checked file was kept
    proposal.refresh_from_db()
    assert proposal.title == "Defect detection models for paper mills"


def test_invalid_revision_upload_changes_nothing(user, user_client):
    proposal = load_demo("lumi-fast-lane", user)
    before = export(user_client, proposal)
    data = json.loads(before)
    data["scalability"]["jobs"][0]["count"] = 0.5
    url = reverse("proposals:import_json_revision", args=[proposal.pk])
    response = user_client.post(url, {"file": upload(json.dumps(data))})
    html = response.content.decode()
    assert "scalability.jobs[0].count" in html
    assert "Replace the content" not in html
    proposal.refresh_from_db()
    assert proposal.revision == 1
    assert export(user_client, proposal) == before


def test_someone_elses_proposal_cannot_be_replaced(proposal, client, other_user):
    client.force_login(other_user)
    url = reverse("proposals:import_json_revision", args=[proposal.pk])
    response = client.post(url, {"file": upload(example("lumi-fast-lane"))})
    assert response.status_code == 404
    proposal.refresh_from_db()
    assert proposal.title != "Defect detection models for paper mills"
