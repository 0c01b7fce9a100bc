"""Issue 36: the pages that scrolled sideways at first sight fit the screen in every
interface language, on a phone (390 px) and a laptop (1366 px): the AI for Science
selection step, the comparison of systems, the export page and the scalability
step with its measurement rows. Nothing makes the document wider than the window
(``scrollWidth <= innerWidth``)."""

import pytest
from django.urls import reverse

from tests.e2e.test_input_trust import log_in
from tests.e2e.test_language_layout import _too_wide
from tests.factories import CodeEntryFactory, ProposalFactory, UserFactory
from tests.factories import ScalingMeasurementFactory as Measurement

LOCALES = ["en-GB", "de-DE", "fr-FR", "it-IT", "es-ES"]
WIDTHS = [390, 1366]
PAGES = {
    "ai-for-science": lambda pk: reverse("proposals:step", args=[pk, "selection"]),
    "compare-systems": lambda pk: reverse("proposals:compare_systems", args=[pk]),
    "export": lambda pk: reverse("proposals:export_portal", args=[pk]),
    "measurements": lambda pk: reverse("proposals:step", args=[pk, "scalability"]),
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("locale", LOCALES)
def test_first_sight_pages_fit_the_window(
    browser, live_server, e2e_catalogue, artifacts, locale, width
):
    user = UserFactory()
    proposal = ProposalFactory(
        owner=user,
        call_family="ai_for_science",
        organisation_kind="academic",
        organisation_name="Università degli Studi di Esempio",
        max_gpus_per_job=16,
    )
    code = CodeEntryFactory(proposal=proposal, name="Megatron-LM", version="0.9.0")
    for gpus in (4, 8, 16):
        Measurement(proposal=proposal, gpus=gpus, code=code)
    context = browser.new_context(
        locale=locale, viewport={"width": width, "height": 900}
    )
    page = context.new_page()
    log_in(page, live_server.url, user.username)
    wide = {}
    for name, url in PAGES.items():
        page.goto(f"{live_server.url}{url(proposal.pk)}")
        assert page.get_attribute("html", "lang") == locale[:2].replace("en", "en-gb")
        page.screenshot(path=artifacts / f"{locale}-{width}-{name}.png", full_page=True)
        fits = page.evaluate(
            "() => document.documentElement.scrollWidth <= window.innerWidth"
        )
        if not fits:
            wide[name] = _too_wide(page)
    context.close()
    assert wide == {}, f"wider than {width} px in {locale}: {wide}"
