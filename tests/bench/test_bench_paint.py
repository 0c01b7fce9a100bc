"""Wizard performance in Chromium: keystroke to painted tier (split from
test_bench_wizard.py). Figures are printed; only wrong results fail."""

import pytest
from django.urls import reverse

from tests.bench.conftest import meets, report
from tests.factories import (
    CodeEntryFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.bench.urls")]

# --- Keystroke to painted tier, in Chromium -------------------------------------------

# Set at each keydown; when the tier badge's text changes, the next animation frame
# records the time since (the frame that paints it).
PAINT_PROBE = """() => {
  const probe = (window.__probe = { samples: [], last: null, t0: null });
  const tierText = () => {
    const tier = document.querySelector('#live-tier [data-testid="tier"]');
    return tier ? tier.textContent : null;
  };
  probe.last = tierText();
  document.addEventListener("keydown", () => { probe.t0 = performance.now(); }, true);
  new MutationObserver(() => {
    const text = tierText();
    if (text === probe.last || probe.t0 === null) return;
    probe.last = text;
    const t0 = probe.t0;
    requestAnimationFrame(() => probe.samples.push(performance.now() - t0));
  }).observe(document.querySelector(".live-sidebar"), {
    childList: true, subtree: true, characterData: true,
  });
}"""


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    import shutil

    from tests.e2e.conftest import CHROMIUM_ARGS

    return {
        **browser_type_launch_args,
        "executable_path": shutil.which("chromium") or shutil.which("chromium-browser"),
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def _async_unsafe():
    """Playwright's sync API runs an event loop in this thread (as in tests/e2e);
    set before the test database, for this benchmark's session only."""
    import os

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.mark.django_db(transaction=True)
def test_keystroke_to_painted_tier(_async_unsafe, live_server, browser, catalogue):
    import re
    import statistics

    from tests.factories import PASSWORD, UserFactory, cluster

    user = UserFactory()
    proposal = ProposalFactory(
        owner=user, system=cluster(), total_gpu_hours=5000, max_gpus_per_job=16
    )
    code = CodeEntryFactory(proposal=proposal, position=0)
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280), (16, 4225)]):
        ScalingMeasurementFactory(
            proposal=proposal,
            code=code,
            gpus=gpus,
            throughput=throughput,
            position=position,
        )
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    url = reverse("proposals:step", args=[proposal.pk, "selection"])
    page.goto(f"{live_server.url}{url}")
    trigger = page.locator("#wizard-form").get_attribute("hx-trigger")
    debounce = int(re.search(r"input delay:(\d+)ms", trigger).group(1))
    page.evaluate(PAINT_PROBE)
    field = page.locator("#id_total_gpu_hours")
    field.click()
    page.keyboard.press("End")
    rounds = 12
    for i in range(rounds):
        # 5000 (Playground) <-> 50000 (Fast Lane): every keystroke changes the tier.
        page.keyboard.press("0" if i % 2 == 0 else "Backspace")
        page.wait_for_function("n => window.__probe.samples.length >= n", arg=i + 1)
        page.wait_for_selector('#save-status[data-state="saved"]')
    samples = page.evaluate("window.__probe.samples")
    requests = page.evaluate(
        """() => performance.getEntriesByType("resource")
            .filter(e => e.initiatorType === "xmlhttprequest")
            .map(e => e.responseEnd - e.startTime)"""
    )
    typing = page.evaluate(
        """() => { const i = document.querySelector('#id_total_gpu_hours');
            i.dispatchEvent(new Event('input', {bubbles: true}));
            return document.querySelector('#save-status').textContent.trim(); }"""
    )
    context.close()
    median = statistics.median(samples)
    p95 = sorted(samples)[max(0, int(len(samples) * 0.95) - 1)]
    report(
        "Keystroke to painted tier in Chromium (selection step, tier changes)",
        [
            ("debounce (hx-trigger on the form)", f"{debounce} ms"),
            ("keystroke to painted tier, median", f"{median:.0f} ms"),
            ("keystroke to painted tier, p95", f"{p95:.0f} ms"),
            (
                "of which the autosave request, median",
                f"{statistics.median(requests):.0f} ms",
            ),
            ("after the debounce, median", f"{median - debounce:.0f} ms"),
            (
                "target: at most debounce + 100 ms",
                f"{debounce + 100} ms: "
                + meets("keystroke to painted tier (ms)", median, debounce + 100),
            ),
            ("save indicator while typing (no request)", typing),
        ],
    )
    assert debounce <= 250
    assert typing == "Typing…"


# --- The first edit of a step at the row limits, in Chromium --------------------------

SETTLE_PROBE = """() => {
  const probe = (window.__settle = { t0: null, left: null, swapped: null, settled: null });
  document.addEventListener("input", () => { probe.t0 = performance.now(); }, true);
  const at = (name) => (event) => {
    if (probe.t0 !== null && probe[name] === null) probe[name] = performance.now() - probe.t0;
  };
  document.body.addEventListener("htmx:beforeSend", at("left"));
  document.body.addEventListener("htmx:afterRequest", at("swapped"));
  document.body.addEventListener("htmx:afterSettle", at("settled"));
}"""

FIRST_EDIT_TARGET_MS = 2000  # was 14.5 s: htmx 2 handled the 831 blocks one by one


@pytest.mark.django_db(transaction=True)
def test_first_edit_at_the_row_limits(_async_unsafe, live_server, browser, catalogue):
    """The first edit of the scalability step with 200 measurements, 200 jobs and
    120 periods: its answer holds every row's findings again (their colour
    changes), 831 out-of-band blocks. Keystroke to settled page, three proposals."""
    import statistics

    from proposals.models import JobType
    from tests.e2e.test_autosave_resilience import log_in
    from tests.factories import UserFactory
    from tests.web.test_step_limits import fill_scalability

    user = UserFactory()
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(120_000)
    log_in(page, live_server.url, user.username)
    rounds, blocks = [], []
    for _ in range(3):
        proposal = fill_scalability(ProposalFactory(owner=user))
        last = JobType.objects.filter(proposal=proposal).order_by("position").last()
        url = reverse("proposals:step", args=[proposal.pk, "scalability"])
        page.goto(f"{live_server.url}{url}")
        page.evaluate(SETTLE_PROBE)
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            page.locator(f"#id_jobs-{last.pk}-title").fill("First edit")
        blocks.append(answer.value.text().count("hx-swap-oob"))
        page.wait_for_function("() => window.__settle.settled !== null")
        rounds.append(page.evaluate("window.__settle"))
        last.refresh_from_db()
        assert last.title == "First edit"
    context.close()

    def median(name):
        return statistics.median(r[name] for r in rounds)

    settled = median("settled")
    report(
        "First edit of the scalability step at the row limits, in Chromium",
        [
            ("out-of-band blocks in the answer", f"{min(blocks)}-{max(blocks)}"),
            ("keystroke to request sent, median", f"{median('left'):.0f} ms"),
            ("keystroke to answer swapped, median", f"{median('swapped'):.0f} ms"),
            ("keystroke to page settled, median", f"{settled:.0f} ms"),
            (
                f"target: at most {FIRST_EDIT_TARGET_MS} ms",
                meets(
                    "first edit at the row limits (ms)", settled, FIRST_EDIT_TARGET_MS
                ),
            ),
        ],
    )
    assert min(blocks) > 800  # the answer this bench is about
