"""What every page check in the browser tests looks at: axe-core's serious and
critical violations, a page that scrolls sideways, a control cut off by the window or
by a box around it, and what the browser logs; and the sign-in they start from."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

# A laptop and a phone: the page checks run at both widths.
WIDTHS = {"laptop": 1366, "phone": 390}


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def log_in(page: Page, base: str, username: str, password: str):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


# The controls that must be whole on screen, and the geometry check: the element's box
# inside the window horizontally and inside every ancestor that clips or scrolls it.
CLIPPED = """
() => {
  const out = [];
  const width = document.documentElement.clientWidth;
  const selector = "button, input:not([type=hidden]), select, textarea, .badge, a.btn";
  for (const el of document.querySelectorAll(selector)) {
    if (el.closest(".visually-hidden, .copy-fallback, [hidden]")) continue;
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.opacity === "0") continue;
    const name = el.id || el.name || el.textContent.trim().slice(0, 30) || el.className;
    const what = `${el.tagName.toLowerCase()} "${name}"`;
    if (box.left < -1 || box.right > width + 1) {
      out.push(`${what}: ${Math.round(box.left)}..${Math.round(box.right)} outside 0..${width}`);
      continue;
    }
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow === "visible") continue;
      const clip = up.getBoundingClientRect();
      if (box.left < clip.left - 1 || box.right > clip.right + 1) {
        const by = `${up.tagName.toLowerCase()}.${up.className}`;
        out.push(`${what}: ${Math.round(box.left)}..${Math.round(box.right)} cut by ` +
                 `${by} ${Math.round(clip.left)}..${Math.round(clip.right)}`);
        break;
      }
    }
  }
  return out;
}
"""
SCROLL = (
    "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
)


class Console:
    """Every error and warning the page logs, and every uncaught exception."""

    def __init__(self, page: Page):
        self.messages: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.messages.append(f"pageerror: {error}"))

    def _console(self, message):
        if message.type in ("error", "warning"):
            self.messages.append(f"{message.type}: {message.text} ({message.location})")


#: Until every running CSS transition and finite animation has ended (a button
#: under the pointer after a click fades to its hover colours for 0.15 s: axe
#: measured the contrast of the colours on the way, 1.3:1 to 2.3:1, whenever nothing
#: slower came between the click and the check). A spinner's endless animation and
#: a paused one are not waited for; one cancelled on the way counts as ended.
SETTLED = """
() => Promise.all(
  document.getAnimations()
    .filter((a) => a.playState === "running" && a.effect
      && a.effect.getComputedTiming().endTime !== Infinity)
    .map((a) => a.finished.catch(() => null))
)
"""


#: The page and what it loads on its own are in: the document, its fonts and images,
#: no htmx request under way (htmx marks the element that sent it, or its indicator,
#: ``htmx-request`` until the answer is swapped in) and no swap still settling.
READY = """
() => document.readyState === "complete" && document.fonts.status === "loaded"
  && !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling")
  && Array.from(document.images).every((image) => image.complete)
"""


def wait_ready(page: Page):
    """Until the page is whole (``READY``) and its transitions have ended
    (``SETTLED``). Playwright's "networkidle", used before, waited for half a
    second without a request after every page: the 187 browser tests on two
    workers took 335 s with it, 305 s with this."""
    page.wait_for_function(READY)
    page.evaluate(SETTLED)


def check_page(page: Page, artifacts, name: str, problems: list[str]):
    """Screenshot, sideways scroll, clipped controls and axe for the page shown,
    once its transitions have ended."""
    wait_ready(page)
    page.screenshot(path=artifacts / f"layout-{name}.png", full_page=True)
    scroll, client = page.evaluate(SCROLL)
    if scroll > client:
        problems.append(f"{name}: the page is {scroll} px wide in a {client} px window")
    problems.extend(f"{name}: {item}" for item in page.evaluate(CLIPPED))
    problems.extend(f"{name}: axe {item}" for item in serious_violations(page))
