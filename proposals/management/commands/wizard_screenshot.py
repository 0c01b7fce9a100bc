"""Render the landing page's screenshot: a real wizard page, drawn by Chromium.

Serves this project on a free local port (the configured database, with the demo
data loaded first), logs in as the demo applicant and photographs the scalability
step of the LUMI Fast Lane demo proposal. Needs Playwright (the ``test`` extra) and
Debian's ``chromium``; it never downloads a browser.
"""

import shutil
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.testcases import LiveServerThread
from django.urls import reverse

from proposals.domain import jsonformat
from proposals.domain.sections import TABLE_BY_KIND
from proposals.management.commands.load_demo import DEMO_USERS, EXAMPLES
from proposals.models import Proposal
from proposals.views.public import SCREENSHOT

EXAMPLE = "lumi-fast-lane.json"
USERNAME = "demo"
MEASUREMENTS_HEADING = TABLE_BY_KIND["measurements"].title
VIEWPORT = {"width": 1366, "height": 900}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


class Command(BaseCommand):
    help = "Write static/img/wizard-screenshot.png from the running wizard (Chromium)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--output",
            default=str(Path(settings.BASE_DIR) / "static" / SCREENSHOT),
            help="Where to write the PNG (default: the landing page's static file).",
        )

    def handle(self, *args, output, **options):
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:
            raise CommandError(
                "Playwright is needed: pip install -e '.[test]'"
            ) from exc
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            raise CommandError("Debian's chromium is needed: apt-get install chromium")

        call_command("load_demo", verbosity=0)
        title = jsonformat.loads((EXAMPLES / EXAMPLE).read_text(encoding="utf-8")).title
        proposal = Proposal.objects.get(owner__username=USERNAME, title=title)
        step = reverse("proposals:step", args=[proposal.pk, "scalability"])
        password = DEMO_USERS[USERNAME][0]

        server = LiveServerThread("127.0.0.1", StaticFilesHandler, port=0)
        server.daemon = True
        server.start()
        server.is_ready.wait()
        if server.error:
            raise CommandError(f"Could not serve the wizard: {server.error}")
        base = f"http://127.0.0.1:{server.port}"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, args=CHROMIUM_ARGS
                )
                page = browser.new_page(viewport=VIEWPORT)
                page.goto(f"{base}{reverse('login')}")
                page.fill("#id_username", USERNAME)
                page.fill("#id_password", password)
                page.click("main button[type=submit]")
                page.wait_for_url(f"{base}{reverse('proposals:list')}")
                page.goto(f"{base}{step}")
                page.wait_for_load_state("networkidle")
                # The measurements table at the top: what the step computes.
                heading = page.get_by_role("heading", name=MEASUREMENTS_HEADING)
                top = heading.first.bounding_box()["y"]
                page.evaluate("y => window.scrollTo(0, y)", max(top - 16, 0))
                # A header's glossary help, as a pointer over it shows it.
                help_link = page.locator("th a.term[href$='#mfu']")
                if help_link.count():
                    help_link.first.hover()
                Path(output).parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=output)
                browser.close()
        finally:
            server.terminate()
        self.stdout.write(self.style.SUCCESS(f"Wrote {output}"))
