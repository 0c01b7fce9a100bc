"""The organisation step shows the VAT example of the organisation's country."""

from django.urls import reverse

from tests.factories import ProposalFactory


def _vat_help(client, proposal) -> str:
    page = client.get(reverse("proposals:step", args=[proposal.pk, "organisation"]))
    text = page.content.decode()
    start = text.index('id="id_vat_number"')
    return text[start : start + 3000]


def test_a_german_organisation_reads_a_german_vat_example(user, user_client):
    proposal = ProposalFactory(owner=user, organisation_country="DE", vat_number="")
    shown = _vat_help(user_client, proposal)
    assert "DE136695976" in shown
    assert "FI20774740" not in shown


def test_without_a_country_no_other_countrys_example_is_shown(user, user_client):
    proposal = ProposalFactory(owner=user, organisation_country="", vat_number="")
    assert "FI20774740" not in _vat_help(user_client, proposal)
