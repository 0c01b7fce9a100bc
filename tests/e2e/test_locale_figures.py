"""Issue 25 in Chromium: a Swiss German and a German applicant type the same
figures in their own convention and read every figure printed in it, while the
text for the portal is identical for both."""

import pytest
from playwright.sync_api import expect

from proposals import services
from tests.e2e.test_input_trust import log_in, retype, settled
from tests.factories import ProposalFactory, UserFactory

# The browser's locale, the person's format, and the figures as they write them.
PEOPLE = {
    "de-CH": {
        "format": "de_CH",
        "hours": "18\u2019176",
        "transfer": "0.25",
        "requested": "18'176",
        "field": "0.25",
    },
    "de-DE": {
        "format": "de_DE",
        "hours": "18.176",
        "transfer": "0,25",
        "requested": "18.176",
        "field": "0,25",
    },
}


def _type_and_read(browser, base, locale):
    person = PEOPLE[locale]
    user = UserFactory()
    services.preferences_set(user=user, number_format=person["format"])
    proposal = ProposalFactory(owner=user, title="Same figures")
    context = browser.new_context(locale=locale)
    page = context.new_page()
    log_in(page, base, user.username)
    page.goto(f"{base}/proposals/{proposal.pk}/selection/")
    retype(page, "#id_total_gpu_hours", person["hours"])
    settled(page)
    retype(page, "#id_transfer_out_tb", person["transfer"])
    settled(page)
    expect(page.get_by_test_id("requested-hours")).to_have_text(person["requested"])
    expect(page.get_by_test_id("tier")).to_have_text("Fast Lane")
    page.reload()
    expect(page.locator("#id_transfer_out_tb")).to_have_value(person["field"])
    expect(page.get_by_test_id("requested-hours")).to_have_text(person["requested"])
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == 18176
    assert str(proposal.transfer_out_tb) == "0.25"
    page.goto(f"{base}/proposals/{proposal.pk}/export/")
    portal = page.locator("pre.portal-text").all_inner_texts()
    context.close()
    return portal


@pytest.mark.django_db(transaction=True)
def test_swiss_and_german_people_read_their_own_figures_and_paste_the_same(
    browser, live_server, e2e_catalogue
):
    swiss = _type_and_read(browser, live_server.url, "de-CH")
    german = _type_and_read(browser, live_server.url, "de-DE")
    assert swiss == german and swiss
    text = "\n".join(swiss)
    assert "18,176" in text or "18176" in text  # the portal's form
    assert "18.176" not in text and "18'176" not in text
