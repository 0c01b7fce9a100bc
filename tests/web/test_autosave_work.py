"""An autosave does each piece of its work once (issue 35, item 5: the autosave within
2x the authenticated SELECT + UPDATE): what is the same at every request is not
derived again, and no part of the answer is computed twice. Counted, not timed."""

from collections import Counter

import pytest
from django.test.utils import override_settings
from django.urls import reverse
from django.utils import translation

from proposals.models import Proposal
from tests.factories import ProposalFactory
from tests.web.test_live import page_data

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


def translated_during(monkeypatch, action) -> Counter:
    """The messages looked up in the catalogues while ``action()`` runs."""
    looked_up: Counter = Counter()
    translation.gettext("")  # Django resolves its translation functions once
    gettext = translation._trans.gettext

    def counting(message):
        looked_up[message] += 1
        return gettext(message)

    monkeypatch.setattr(translation._trans, "gettext", counting)
    action()
    monkeypatch.undo()
    return looked_up


@override_settings(DEBUG=False)
def test_an_autosave_translates_only_the_proposals_own_status_once(
    monkeypatch, user_client, user
):
    """The status badge and the review box write the proposal's status: its label is
    translated once, and no other status's label (Django's ``get_status_display``
    hashes every choice, translating all nine labels, at each call)."""
    proposal = ProposalFactory(owner=user)
    url = reverse("proposals:step", args=[proposal.pk, "scalability"])
    data = {**page_data(proposal, "scalability"), "scalability_narrative": "Typed."}

    def autosave():
        response = user_client.post(url, data, headers=HX)
        assert response.status_code == 200
        assert 'data-state="saved"' in response.content.decode()

    looked_up = translated_during(monkeypatch, autosave)
    labels = {str(label) for label in Proposal.Status.labels}
    statuses = {m: n for m, n in looked_up.items() if m in labels}
    assert statuses == {"Draft": 1}
