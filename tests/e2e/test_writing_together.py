"""Two people of one team typing in one proposal at once, each in their own browser
(issue 31): different fields both save, each sees the other on the page, and the
same field tells the later one who saved what, how long ago, and both values."""

import datetime
import re
from decimal import Decimal

from django.utils import timezone
from playwright.sync_api import expect

from proposals.models import FieldStamp, Membership, Proposal
from tests.e2e.test_input_trust import log_in, retype, settled
from tests.factories import ProposalFactory, UserFactory


def test_two_members_typing_at_once(browser, live_server, e2e_catalogue, artifacts):
    olga = UserFactory(username="olga", first_name="Olga")
    anna = UserFactory(username="anna", first_name="Anna")
    proposal = ProposalFactory(
        owner=olga, total_gpu_hours=Decimal(10000), libraries="PyTorch"
    )
    Membership.objects.create(
        proposal=proposal, user=anna, role="editor", since=timezone.now()
    )
    step = f"{live_server.url}/proposals/{proposal.pk}/selection/"
    pages = {}
    for person in (olga, anna):
        context = browser.new_context(locale="en-GB")
        page = context.new_page()
        log_in(page, live_server.url, person.username)
        page.clock.install()  # runs as usual; paused below while Olga retypes
        page.goto(step)
        pages[person.username] = page
    mine, hers = pages["olga"], pages["anna"]

    # Different fields: both saved; each sees the other on this step.
    retype(mine, "#id_libraries", "JAX 0.4")
    settled(mine)
    expect(mine.get_by_test_id("presence")).to_contain_text("Anna")
    retype(hers, "#id_total_gpu_hours", "12000")
    settled(hers)
    expect(hers.get_by_test_id("presence")).to_contain_text("Olga (this step)")
    stored = Proposal.objects.get(pk=proposal.pk)
    assert (stored.libraries, stored.total_gpu_hours) == ("JAX 0.4", 12000)

    # The same field, on a page that has not seen Anna's save: Olga is told.
    # Her page's clock stops while she retypes: on a loaded machine the typing delay
    # could otherwise end on the emptied field, and that save's conflict (and its
    # answer) would come before the value the test is about.
    mine.clock.pause_at(datetime.datetime.now() + datetime.timedelta(minutes=1))
    retype(mine, "#id_total_gpu_hours", "11000")
    mine.clock.resume()
    settled(mine, "conflict")
    conflict = mine.get_by_test_id("conflict")
    expect(conflict).to_contain_text(re.compile(r"Anna saved 12,000 here \d+ s ago"))
    expect(conflict).to_contain_text("you typed 11,000")
    expect(mine.get_by_test_id("field-conflict")).to_contain_text("Anna saved 12,000")
    mine.screenshot(path=str(artifacts / "together-conflict.png"), full_page=True)
    assert Proposal.objects.get(pk=proposal.pk).total_gpu_hours == 12000
    stamps = {s.key: s.user_id for s in FieldStamp.objects.filter(proposal=proposal)}
    assert stamps["libraries"] == olga.pk and stamps["total_gpu_hours"] == anna.pk

    # "Keep mine": Olga's value wins, and the field now says she changed it.
    conflict.get_by_role("button", name="Keep mine").click()
    settled(mine)
    assert Proposal.objects.get(pk=proposal.pk).total_gpu_hours == 11000
    hers.reload()
    history = hers.locator("#wrap-id_total_gpu_hours").get_by_test_id("field-history")
    history.focus()
    expect(hers.locator("#fh-id_total_gpu_hours")).to_be_visible()
    expect(hers.locator("#fh-id_total_gpu_hours")).to_contain_text(
        "Last changed by Olga on"
    )
    for page in pages.values():
        page.context.close()
