"""What an autosave sends and gets back about what the page shows (issue 21): the
bases of the inputs it sends, not every input's; what the other rows show is the
key of each row's values region, in the one list of region keys the page posts
(issue 35); and back, the bases of what it sent, not the whole page's, and the
region keys the page shows now. Another tab's change to a row not sent still
reaches the page, and so does a row removed."""

import html
import json

import pytest
from django.urls import reverse

from proposals.models import JobType, Proposal
from proposals.wizard.form_regions import is_row_name
from tests.factories import JobTypeFactory
from tests.web.test_row_races import autosave, load, step_url
from tests.web.test_row_refresh import refresh_of

pytestmark = pytest.mark.django_db
ROWS = ("jobs", "measurements", "schedule", "codes")


def slim(data: dict, typed_rows=()) -> dict:
    """``data`` as the page's autosave sends it: the rows typed in, the bases of
    what is sent, and its region keys as they are (static/js/app.js)."""
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
    return sent


def keys_of(field: str) -> dict:
    """The keys of the rows' values among the region keys of a ``regions`` field."""
    pairs = dict(pair.split(":") for pair in field.split())
    return {name: key for name, key in pairs.items() if is_row_name(name)}


def row_keys(content: str) -> dict:
    """:func:`keys_of` the ``regions`` field a page or an answer shows."""
    return keys_of(content.split('name="regions"')[1].split('value="')[1].split('"')[0])


def update_of(content: str) -> dict:
    raw = content.split('id="bases-update"')[1].split('data-bases="')[1]
    return json.loads(html.unescape(raw.split('"')[0]))


@pytest.fixture
def jobs(proposal):
    return [
        JobTypeFactory(proposal=proposal, title=f"Job {i}", position=i)
        for i in range(3)
    ]


def test_the_page_keeps_each_row_s_values_among_its_region_keys(
    user_client, proposal, jobs
):
    content = user_client.get(step_url(proposal)).content.decode()
    keys = row_keys(content)
    assert set(keys) == {f"jobs-{job.pk}" for job in jobs}
    assert len(set(keys.values())) == 3  # different rows, different keys
    assert 'name="row_keys"' not in content  # one list of keys, not two


def test_an_autosave_sends_and_gets_back_only_what_it_saves(
    user_client, proposal, jobs
):
    data = load(user_client, proposal)
    before = row_keys(user_client.get(step_url(proposal)).content.decode())
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
    # The region keys come back whole: the row sent has its new values' key.
    after = row_keys(content)
    assert set(after) == set(before)
    assert {name for name in after if after[name] != before[name]} == {typed}


def test_a_row_changed_elsewhere_and_not_sent_is_sent_again(
    user_client, proposal, jobs
):
    """The page posts no fingerprints of its own: the rows' values regions among
    its region keys tell the rows another tab changed."""
    tab_a, tab_b = load(user_client, proposal), load(user_client, proposal)
    assert "row_keys" not in tab_a
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
    # The page now shows the row as stored: its key is a fresh page's.
    fresh = user_client.get(step_url(proposal, "scalability")).content.decode()
    assert row_keys(content)[other] == row_keys(fresh)[other]
    assert row_keys(content)[other] != keys_of(tab_a["regions"])[other]
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


@pytest.mark.parametrize(
    "sent", ["jobs-x:abc", "jobs-01:abc", "nope", "jobs-1:", ":", "jobs-1:a-b"]
)
def test_odd_row_keys_are_left_out(user_client, proposal, jobs, sent):
    tab_a = load(user_client, proposal)
    tab_a["scalability_narrative"] = "Words."
    body = {**slim(tab_a), "regions": sent, "revision": ""}
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
