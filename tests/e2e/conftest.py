"""Browser tests: pytest-playwright driving Debian's Chromium against ``live_server``.

Never ``playwright install``: the browser is the system's Chromium (its headless
shell when installed). Screenshots of every step are written to ``test-artifacts/``
for people to look at.
"""

import os
import shutil
from pathlib import Path

import pytest

from tests import live_gate

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


def chromium_executable() -> str | None:
    """Debian's Chromium: its headless shell when installed, the full browser
    otherwise. The shell is the same build in the old headless mode, without the
    full browser's window layer: a browser test costs about 40 % less CPU (measured
    on 64 tests: 342 -> 209 CPU seconds). It does not match the full browser in
    every respect; every browser test passed on both when it was adopted."""
    for name in ("chromium-headless-shell", "chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    executable = chromium_executable()
    if executable is None:
        pytest.fail(
            "Debian's chromium is needed for the browser tests: apt-get install chromium"
        )
    return {
        **browser_type_launch_args,
        "executable_path": executable,
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1366, "height": 900}}


@pytest.fixture(scope="session", autouse=True)
def _async_unsafe():
    # Playwright's sync API runs an event loop in this thread; the ORM calls made by
    # the test itself (fixtures, assertions) are still synchronous and safe. Session
    # scope, because the test database is set up (a session fixture) after Playwright
    # started; only the browser tests get it.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def e2e_catalogue(transactional_db):
    """The catalogue and staff group (a transactional test starts from a flushed DB)."""
    from django.apps import apps

    migration = __import__(
        "proposals.migrations.0002_staff_group_and_catalogue", fromlist=["forwards"]
    )
    migration.forwards(apps, None)
    peaks = __import__(
        "proposals.migrations.0016_cluster_peak_throughput",
        fromlist=["load_peak_throughput"],
    )
    peaks.load_peak_throughput(apps, None)
    facts = __import__(
        "proposals.migrations.0049_kit_launch_command_job_facts",
        fromlist=["load_job_facts"],
    )
    facts.load_job_facts(apps, None)  # the scaling kit's Slurm facts


IDLE_WAIT_SECONDS = 15


@pytest.fixture(autouse=True)
def _live_server_idle_before_the_flush(request):
    """After a browser test the database is emptied; the live server must not be
    answering then (``tests.live_gate``). Set up before the test's page and torn
    down after it, this closes the gate to new requests and waits until the
    requests being answered are done, so the flush that follows runs alone. (It
    waited for 0.3 s without a request before: about a minute of browser-test time
    in every CI run.)"""
    yield
    if "live_server" not in request.fixturenames:
        return
    live_gate.close()
    live_gate.wait_answered(IDLE_WAIT_SECONDS)


@pytest.fixture(autouse=True)
def _site_url_is_the_live_server(request, settings):
    """Every link in a mail starts with ``SITE_URL``: in a browser test, that is
    the live server (its port changes from run to run)."""
    if "live_server" in request.fixturenames:
        settings.SITE_URL = request.getfixturevalue("live_server").url


@pytest.fixture
def submitted(e2e_catalogue):
    """The demo data (``load_demo``) with its Fast Lane proposal submitted for review,
    a staff question answered, an edit since revision 1 and a proposal waiting long."""
    from datetime import timedelta

    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.utils import timezone

    from proposals import services
    from proposals.models import Proposal, ReviewState
    from proposals.selectors import proposal_with_children

    call_command("load_demo", "--with-public-passwords", verbosity=0)
    proposal = proposal_with_children(
        Proposal.objects.filter(title__contains="paper mills")
    ).get()
    services.review_submit(proposal=proposal, user=proposal.owner, note="Please look")
    # A staff comment with a reply, so that threads and their Reply forms are shown.
    staff = User.objects.get(username="staff")
    question = services.comment_add(
        proposal=proposal, author=staff, section="scalability", body="Which GPUs?"
    )
    services.comment_add(
        proposal=proposal,
        author=proposal.owner,
        section="scalability",
        body="MI250X, 8 GCDs per node.",
        parent=question,
    )
    # An edit since revision 1, so that the diff page shows deleted and inserted
    # text (their colours must keep a 4.5:1 contrast).
    Proposal.objects.filter(pk=proposal.pk).update(
        organisation_name="Renamed Research Oy"
    )
    # One proposal waiting longer than its call's typical response time (highlighted).
    ReviewState.objects.filter(proposal__title__startswith="Visual inspection").update(
        submitted_at=timezone.now() - timedelta(days=14)
    )
    return proposal
