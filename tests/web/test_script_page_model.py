"""The load test's and the production walk's model of the page
(``scripts/loadtest/page.py``) follows the real page: two autosaves in a row, the
second built from what the first answered, are both saved (no conflict)."""

import pytest
from django.urls import reverse

from scripts.loadtest.page import STATE, FormReader, take_answer
from tests.factories import ProposalFactory

pytestmark = pytest.mark.django_db


def test_the_scripts_keep_an_answer_as_the_page_does(user_client, user):
    proposal = ProposalFactory(owner=user)
    url = reverse("proposals:step", args=[proposal.pk, "optimisation"])
    reader = FormReader()
    reader.feed(user_client.get(url).content.decode())
    fields = dict(reader.fields)
    name = next(n for n in fields if n.endswith("optimisation_narrative"))
    states = []
    for text in ("First save.", "First save. Second save."):
        posted = dict(fields, autosave="1")
        posted[name] = text
        answer = user_client.post(url, posted, headers={"HX-Request": "true"})
        content = answer.content.decode()
        states.append(STATE.search(content).group(1))
        fields[name] = text
        take_answer(fields, content)
    assert states == ["saved", "saved"]
    proposal.refresh_from_db()
    assert proposal.optimisation_narrative == "First save. Second save."
    assert fields["revision"] == str(proposal.revision)
