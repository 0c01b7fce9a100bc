"""The measurement row's code select shows its chosen entry whole at 1366 px in German
(it showed 66 of 175 px of it): its visible text box is at least as wide as the
option's text."""

import pytest
from playwright.sync_api import expect

from tests.e2e.test_input_trust import log_in
from tests.factories import CodeEntryFactory, ProposalFactory, UserFactory
from tests.factories import ScalingMeasurementFactory as Measurement

# Shown text width of the select's chosen option, and the width the select leaves
# for it (its content box: padding and the arrow's room taken off).
MEASURE = """select => {
  const style = getComputedStyle(select);
  const canvas = document.createElement("canvas").getContext("2d");
  canvas.font = style.font;
  const text = select.options[select.selectedIndex].text;
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return {text, needed: canvas.measureText(text).width, room};
}"""


@pytest.mark.parametrize("locale", ["de-DE", "en-GB"])
def test_the_code_select_shows_its_entry_whole(
    browser, live_server, e2e_catalogue, locale
):
    user = UserFactory()
    proposal = ProposalFactory(owner=user, max_gpus_per_job=8)
    code = CodeEntryFactory(proposal=proposal, name="Megatron-LM", version="0.9.0")
    for gpus in (8, 16):
        Measurement(proposal=proposal, gpus=gpus, code=code)
    context = browser.new_context(
        locale=locale, viewport={"width": 1366, "height": 900}
    )
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/proposals/{proposal.pk}/scalability/")
    # The measurement rows' selects (not the log form's, laid out once its panel is).
    selects = page.locator("select[name^='measurements-'][name$='-code']")
    expect(selects.first).to_be_visible()
    for index in range(selects.count()):
        shown = selects.nth(index).evaluate(MEASURE)
        assert "Megatron-LM" in shown["text"]
        assert shown["room"] >= shown["needed"], shown
    # Without the table scrolling sideways for it.
    table = page.locator("table:has(select[name^='measurements-'][name$='-code'])")
    assert table.evaluate(
        "t => t.parentElement.scrollWidth <= t.parentElement.clientWidth"
    )
    context.close()
