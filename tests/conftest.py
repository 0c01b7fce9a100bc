import time

import pytest
from django.apps import apps
from django.db import OperationalError, transaction
from django.utils import translation

from tests import live_gate, properties
from tests.factories import ProposalFactory, StaffUserFactory, UserFactory

# The data migration's own loader, reused for tests whose database was flushed.
_migration = __import__(
    "proposals.migrations.0002_staff_group_and_catalogue", fromlist=["forwards"]
)


_billing = __import__(
    "proposals.migrations.0011_cluster_billing_units", fromlist=["load_billing_units"]
)
_peaks = __import__(
    "proposals.migrations.0016_cluster_peak_throughput",
    fromlist=["load_peak_throughput"],
)
_size = __import__(
    "proposals.migrations.0026_cluster_system_size", fromlist=["load_system_size"]
)
_associations = __import__(
    "proposals.migrations.0027_country_associations", fromlist=["load_associations"]
)
_gpu_models = __import__(
    "proposals.migrations.0029_gpu_models", fromlist=["load_gpu_models"]
)
_terms = __import__("proposals.migrations.0010_call_terms", fromlist=["load_terms"])
_targets = __import__("proposals.migrations.0043_desk_clock", fromlist=["set_targets"])
_job_facts = __import__(
    "proposals.migrations.0049_kit_launch_command_job_facts",
    fromlist=["load_job_facts"],
)
_announced = __import__(
    "proposals.migrations.0052_systems_announced", fromlist=["load_announced"]
)
_countries = __import__(
    "proposals.migrations.0012_country_eligibility", fromlist=["load_countries"]
)


def pytest_addoption(parser):
    parser.addoption(
        "--long-properties",
        action="store_true",
        help="run the long property tests (marked long_property) with their full "
        "example counts instead of the bounded default (tests/properties.py)",
    )


def pytest_configure(config):
    properties.LONG = config.getoption("--long-properties")


# What the two databases may decide differently, and the test modules that check it:
# CI runs these on SQLite and again on PostgreSQL (marked ``database``), every other
# test once (on SQLite; the browser tests on PostgreSQL). A test of a page, a
# permission or a figure reads and writes through the same ORM on both, and the
# browser tests walk every page on PostgreSQL.
DATABASE_SPECIFIC = {
    "transactions, locks and writers at once": (
        "web/test_row_races",
        "web/test_together",
        "web/test_team_life",
        "web/test_bases_payload",
        "web/test_autosave_work",
        "web/test_autosave_equals_reload",
        "web/test_signup_transaction",
        "web/test_helpdesk_record",
        "web/test_status_integrity",
        "web/test_review_workflow",
        "web/test_account_deletion",
        "web/test_mail_delivery",
        "web/test_pdf_stall",
        "web/test_pdf_exports",
        "web/test_log_reading_worker",
        "commands/test_worker_claims",
        "commands/test_resilient_worker",
        "commands/test_backup",
        "commands/test_load_demo",
        "commands/test_test_selection",
    ),
    "what the database stores and refuses (text, numbers, limits, constraints)": (
        "web/test_models",
        "web/test_odd_input",
        "web/test_odd_posts",
        "web/test_fuzz",
        "web/test_fuzz_posts",
        "web/test_bounds_round_trip",
        "web/test_row_limits",
        "web/test_step_limits",
        "web/test_input_trust",
        "web/test_live",
        "web/test_wizard_tables",
        "web/test_import_json",
        "web/test_import_limits",
        "web/test_systems_catalogue",
        "web/test_compiled_queries",
        "web/test_technical_assessment",
        "web/test_assessment_refusal",
        "web/test_error_pages",
        "web/test_cache_backends",
        "commands/test_import_fidelity",
        "commands/test_frontier_scale",
    ),
    "order, search and time in queries": (
        "web/test_queue_search_index",
        "web/test_helpdesk_queue",
        "web/test_review_queue",
        "web/test_staff_queue_tool",
        "web/test_desk_saved_views",
        "web/test_desk_bulk",
        "web/test_desk_clock",
        "web/test_desk_digest",
        "web/test_cutoff_reminders",
        "web/test_calendar_sidebar",
        "web/test_review_page_queries",
    ),
    "migrations and the data they load": (
        "web/test_cutoffs_migration",
        "web/test_foundation",
        "web/test_production",
    ),
}
# Any test that commits (a transactional test, by fixture or by its django_db
# marker) is database-specific too.
TRANSACTIONAL_FIXTURES = frozenset({"transactional_db", "django_db_reset_sequences"})


def database_specific_module(path) -> bool:
    """Whether the test module at ``path`` is named in ``DATABASE_SPECIFIC``."""
    name = str(path).replace("\\", "/").rsplit("/tests/", 1)[-1].removesuffix(".py")
    return any(name in modules for modules in DATABASE_SPECIFIC.values())


def pytest_collection_modifyitems(items):
    """Mark the database-specific tests ``database``: CI runs those on SQLite and
    again on PostgreSQL, the others once (.ci/run)."""
    database = pytest.mark.database
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        marker = item.get_closest_marker("django_db")
        commits = marker is not None and marker.kwargs.get("transaction", False)
        if (
            commits
            or fixtures & TRANSACTIONAL_FIXTURES
            or database_specific_module(item.fspath)
        ):
            item.add_marker(database)


def catalogue_is_loaded() -> bool:
    """Whether the data migrations' rows are in the test database. Between two tests
    the database holds either all of them (as migrated, every test's own writes rolled
    back) or none (emptied after a transactional test): the staff group and the
    clusters, the first rows they load, tell which."""
    return (
        apps.get_model("auth", "Group").objects.exists()
        and apps.get_model("proposals", "Cluster").objects.exists()
    )


@pytest.fixture
def catalogue(db):
    """The cluster catalogue (with billing units), the call terms, the country
    eligibility and the staff group, as the data migrations create them: loaded
    again only after a transactional test emptied the database (reloading cost
    about 80 ms a test, in some 1,700 tests per database)."""
    if catalogue_is_loaded():
        return
    _migration.forwards(apps, None)
    _billing.load_billing_units(apps, None)
    _peaks.load_peak_throughput(apps, None)
    _size.load_system_size(apps, None)
    _job_facts.load_job_facts(apps, None)
    _announced.load_announced(apps, None)
    _gpu_models.load_gpu_models(apps, None)
    _terms.load_terms(apps, None)
    _targets.set_targets(apps, None)
    _countries.load_countries(apps, None)
    _associations.load_associations(apps, None)


@pytest.fixture
def user(db, catalogue):
    return UserFactory()


@pytest.fixture
def other_user(db, catalogue):
    return UserFactory()


@pytest.fixture
def staff_user(db, catalogue):
    return StaffUserFactory()


@pytest.fixture
def proposal(user):
    return ProposalFactory(owner=user)


@pytest.fixture
def user_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture(scope="session", autouse=True)
def _flush_postgresql_by_delete():
    """After a transactional test (every browser test) Django empties every table;
    on PostgreSQL with one ``TRUNCATE`` of the 61 tables, which makes new files for
    each table and index and waits for them on disk: 13 browser tests spent 13.7 s
    in it (median 1.19 s a test, on a busy machine), against 0.95 s (73 ms) for a
    ``DELETE`` from each table in one transaction. The database ends up as empty
    either way (sequences go on in both, as Django asks without
    ``reset_sequences``), and SQLite's flush is a ``DELETE`` too. Django's foreign
    keys on PostgreSQL are checked at commit, so the order of the tables does not
    matter. A reset of the sequences or a cascade (a subset of the tables) keeps
    Django's own ``TRUNCATE``."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(
                self,
                style,
                tables,
                reset_sequences=reset_sequences,
                allow_cascade=allow_cascade,
            )
        return ["SET CONSTRAINTS ALL DEFERRED;"] + [
            f"DELETE FROM {self.quote_name(table)};" for table in tables
        ]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = truncate


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """A browser test's teardown closes the live server to requests until its
    database is emptied (``tests.live_gate``); once the test's teardown is over
    (the flush included), the server takes requests again, for whatever runs next."""
    try:
        return (yield)
    finally:
        live_gate.open_gate()


@pytest.fixture(autouse=True)
def _english_after():
    """Django's LocaleMiddleware activates a request's language for the thread and
    leaves it active (a server's next request activates its own); the test client
    runs in the test's thread, so a German page would leave the next test German."""
    yield
    from django.conf import settings

    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _empty_cache():
    """Rate-limit counters (and cached charts and fragments, with this process's
    own copies of the fragments) live in the cache: start each test with none. The
    reference data's stamp lives there too, so this process's copy of the reference
    data goes with it (otherwise the first look at the missing stamp, up to
    STAMP_CHECK into the test, would reload it mid-measurement)."""
    from django.core.cache import cache

    from proposals import fragment_cache, reference_data

    cache.clear()
    fragment_cache.forget()
    reference_data.forget()


@pytest.fixture
def run_tasks(db):
    """Run the queued background tasks that are due, as ``manage.py db_worker`` would,
    in the test's own thread and transaction; returns how many ran."""
    from django_tasks_db.management.commands.db_worker import Worker
    from django_tasks_db.models import DBTaskResult

    worker = Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )

    def claimed():
        # Claimed under a row lock, as the worker does: PostgreSQL refuses
        # SELECT ... FOR UPDATE outside a transaction (the browser tests run in
        # autocommit).
        with transaction.atomic():
            result = DBTaskResult.objects.ready().get_locked()
            if result is not None:
                result.claim(worker.worker_id)
            return result

    def run() -> int:
        count = 0
        while True:
            result = _when_unlocked(claimed)
            if result is None:
                return count
            worker.run_task(result)
            count += 1

    return run


def _when_unlocked(func, *, tries=100, pause=0.02):
    """``func()``, tried again while SQLite says a table is locked: a browser test's
    live server shares the in-memory database with the test's thread, and a page
    polling a status while the test claims a task holds it for a moment (shared
    cache answers "locked" at once instead of waiting). Anything else is raised."""
    for _ in range(tries - 1):
        try:
            return func()
        except OperationalError as error:
            if "locked" not in str(error):
                raise
            time.sleep(pause)
    return func()
