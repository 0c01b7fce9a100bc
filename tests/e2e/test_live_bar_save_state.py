"""On a phone (390 px) the status line (#save-status) is far above the viewport once
the person scrolls down a step: the sticky bar at the top says the save state too
("Typing…", then "Saved"), mirroring the status line's state and text."""

import datetime

from playwright.sync_api import expect

from tests.e2e.test_input_trust import log_in, settled
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory


def test_the_phone_s_sticky_bar_says_typing_then_saved(
    browser, live_server, e2e_catalogue
):
    user = UserFactory()
    proposal = ProposalFactory(owner=user, total_gpu_hours=28000, max_gpus_per_job=8)
    jobs = [
        JobTypeFactory(proposal=proposal, title=f"Job {n}", gpus=8, count=1)
        for n in range(6)
    ]
    context = browser.new_context(
        locale="en-GB", viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.clock.install()
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/scalability/")
    bar = page.get_by_test_id("live-bar")
    copy = page.get_by_test_id("live-bar-save")
    last = page.locator(f"#id_jobs-{jobs[-1].pk}-count")
    last.scroll_into_view_if_needed()
    last.click()
    page.keyboard.press("End")
    # The page's clock stops, so the 200 ms typing delay cannot end (and the bar
    # move on to "Saving…") before a loaded machine has looked at it.
    page.clock.pause_at(datetime.datetime.now() + datetime.timedelta(minutes=1))
    page.keyboard.type("2")
    page.clock.run_for(50)  # a few frames: the bar follows once a frame
    # The status line is out of sight; the bar, at the top, says it.
    status = page.locator("#save-status")
    assert status.bounding_box()["y"] + status.bounding_box()["height"] < 0
    expect(bar).to_be_in_viewport()
    expect(copy).to_have_attribute("data-state", "dirty")
    expect(copy).to_have_text("Typing…")
    page.clock.resume()
    settled(page)
    expect(copy).to_have_attribute("data-state", "saved")
    expect(copy).to_contain_text("Saved")
    expect(copy).to_be_in_viewport()
    box = copy.bounding_box()
    assert box["y"] >= 0 and box["x"] + box["width"] <= 390
    page.mouse.wheel(0, 400)
    expect(copy).to_contain_text("Saved")
    context.close()
