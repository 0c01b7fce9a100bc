"""What an autosave sends and gets back about what the page shows (issue 21): the
bases of the inputs it sends, and one fingerprint per other row, not every input's
base; and back, the bases of what it sent, not the whole page's. Another tab's
change to a row not sent still reaches the page, and so does a row removed."""

import html
import json

import pytest
from django.urls import reverse

from proposals.models import JobType, Proposal
from tests.factories import JobTypeFactory
from tests.web.test_row_races import autosave, form_of, load, step_url
from tests.web.test_row_refresh import refresh_of

pytestmark = pytest.mark.django_db
ROWS = ("jobs", "measurements", "schedule", "codes")


def slim(data: dict, typed_rows=()) -> dict:
    """``data`` as the page's autosave sends it: the rows typed in, the bases of
    what is sent, and the fingerprints of the other rows (static/js/app.js)."""
    sent = {
        key: value
        for key, value in data.items()
        if key.split("-")[0] not in ("jobs", "measurements", "schedule", "codes")
        or "-".join(key.split("-")[:2]) in typed_rows
    }
    bases = json.loads(data["bases"])
    sent["bases"] = json.dumps(
        {
            k: v
            for k, v in bases.items()
            if k.split("-")[0] not in ROWS or "-".join(k.split("-")[:2]) in typed_rows
        }
    )
    sent["row_keys"] = " ".join(
        pair
        for pair in data["row_keys"].split()
        if pair.split(":")[0] not in typed_rows
    )
    return sent


def update_of(content: str) -> dict:
    raw = content.split('id="bases-update"')[1].split('data-bases="')[1]
    return json.loads(html.unescape(raw.split('"')[0]))


@pytest.fixture
def jobs(proposal):
    return [
        JobTypeFactory(proposal=proposal, title=f"Job {i}", position=i)
        for i in range(3)
    ]


def test_the_page_keeps_a_fingerprint_per_row(user_client, proposal, jobs):
    data = load(user_client, proposal)
    keys = dict(pair.split(":") for pair in data["row_keys"].split())
    assert set(keys) == {f"jobs-{job.pk}" for job in jobs}
    assert len(set(keys.values())) == 3  # different rows, different fingerprints


def test_an_autosave_sends_and_gets_back_only_what_it_saves(
    user_client, proposal, jobs
):
    data = load(user_client, proposal)
    typed = f"jobs-{jobs[1].pk}"
    data[f"{typed}-count"] = "7"
    body = slim(data, {typed})
    assert len(body["bases"]) < len(data["bases"]) / 2
    content = autosave(user_client, proposal, body).content.decode()
    assert JobType.objects.get(pk=jobs[1].pk).count == 7
    update = update_of(content)
    assert update[f"{typed}-count"] == "7"
    assert not any(key.startswith(f"jobs-{jobs[0].pk}-") for key in update)
    assert 'id="bases-field"' not in content  # the page keeps its own
    rows = content.split('data-rows="')[1].split('"')[0]
    assert rows.startswith(f"{typed}:") and " " not in rows


def test_a_row_changed_elsewhere_and_not_sent_is_sent_again(
    user_client, proposal, jobs
):
    tab_a, tab_b = load(user_client, proposal), load(user_client, proposal)
    other = f"jobs-{jobs[2].pk}"
    tab_b[f"{other}-title"] = "From tab B"
    autosave(user_client, proposal, tab_b)
    tab_a["scalability_narrative"] = "Tab A's words."
    content = autosave(user_client, proposal, slim(tab_a)).content.decode()
    refresh = refresh_of(content)
    assert refresh["inputs"][f"{other}-title"] == {
        "value": "From tab B",
        "base": "From tab B",
    }
    fresh = form_of(user_client.get(step_url(proposal, "scalability")).content.decode())
    new_key = dict(pair.split(":") for pair in fresh["row_keys"].split())[other]
    assert refresh["keys"] == {other: new_key}
    # The rows this tab shows as stored are not sent again.
    assert not any(key.startswith(f"jobs-{jobs[0].pk}-") for key in refresh["inputs"])


def test_a_row_removed_elsewhere_and_not_sent_is_marked(user_client, proposal, jobs):
    tab_a = load(user_client, proposal)
    gone = f"jobs-{jobs[0].pk}"
    jobs[0].delete()
    Proposal.objects.filter(pk=proposal.pk).update(revision=5)  # written elsewhere
    tab_a["scalability_narrative"] = "Tab A's words."
    content = autosave(user_client, proposal, slim(tab_a)).content.decode()
    assert refresh_of(content)["removed"] == [gone]


@pytest.mark.parametrize("sent", ["jobs-x:abc", "jobs-01:abc", "nope", "jobs-1:", ":"])
def test_odd_row_keys_are_left_out(user_client, proposal, jobs, sent):
    tab_a = load(user_client, proposal)
    tab_a["scalability_narrative"] = "Words."
    body = {**slim(tab_a), "row_keys": sent, "revision": ""}
    response = autosave(user_client, proposal, body)
    assert response.status_code == 200
    assert refresh_of(response.content.decode()).get("removed") == []


def test_a_delete_compares_the_rows_own_change_not_the_proposals(user_client, proposal):
    """A row's delete compares what the page showed of that row; a change of the
    proposal's own fields is no change of a row with the same id."""
    job = JobTypeFactory(proposal=proposal, title="Training")
    JobType.objects.filter(pk=job.pk).update(id=proposal.pk)
    data = load(user_client, proposal)
    data["scalability_narrative"] = "Changed with the delete."
    url = reverse(
        "proposals:row",
        kwargs={
            "pk": proposal.pk,
            "step": "scalability",
            "kind": "jobs",
            "row": proposal.pk,
            "operation": "delete",
        },
    )
    response = user_client.post(url, data)
    assert response.status_code in (200, 302)
    assert not JobType.objects.filter(pk=proposal.pk).exists()
