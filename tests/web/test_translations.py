"""The German and French interface: the catalogues are complete and current, and no
page shows a string left in English (tests/web/translation_check.py says how that is
detected). How the language is chosen, and the e-mails and portal text, are in
test_language_choice.py."""

import datetime
from datetime import timedelta
from html import unescape

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import get_resolver, reverse
from django.utils import timezone

from proposals import services
from proposals.domain.sections import STEP_SLUGS
from proposals.models import AccessRoute, Cutoff, Membership, Preferences, Proposal
from tests.web import translation_check as check
from tests.web import walk_logs

# Catalogues ------------------------------------------------------------------------


def _catalogue(language):
    path = check.catalogue_path(language)
    if not path.exists():
        pytest.fail(
            f"{path.relative_to(check.ROOT)} is missing: run `make messages`, "
            "translate, and run `make translations`."
        )
    return path


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_catalogue_has_no_untranslated_or_fuzzy_entry(language):
    problems = check.catalogue_problems(_catalogue(language))
    assert problems == [], f"{len(problems)} in locale/{language}:\n" + "\n".join(
        problems
    )


def _rules_catalogue(language):
    path = check.rules_catalogue_path(language)
    if not path.exists():
        pytest.fail(
            f"{path.relative_to(check.ROOT)} is missing: run `make messages` "
            "(manage.py rule_messages) and translate the rules' descriptions."
        )
    return path


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_rules_catalogue_has_no_untranslated_or_fuzzy_entry(language):
    problems = check.catalogue_problems(_rules_catalogue(language))
    assert problems == [], f"{len(problems)} in locale/rules/{language}:\n" + "\n".join(
        problems
    )


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_rules_catalogue_holds_every_rules_description(language):
    missing = check.stale_rule_descriptions(_rules_catalogue(language))
    assert missing == [], (
        f"{len(missing)} rules' descriptions (docstrings) are not in "
        f"locale/rules/{language} (run `make messages` and translate them):\n"
        + "\n".join(missing)
    )


def test_a_rule_added_without_translation_fails_the_rules_catalogue_checks(
    tmp_path, monkeypatch
):
    """A rule registered with a docstring: missing from the committed catalogue;
    once `rule_messages` has run, an untranslated entry; an old translation whose
    docstring changed comes back fuzzy, and a removed rule's entry goes."""
    from proposals.domain import findings
    from proposals.management.commands import rule_messages

    monkeypatch.setattr(findings, "REGISTRY", dict(findings.REGISTRY))

    @findings.rule("TEST-1", severity="info", title="A test rule", step="codes")
    def test_rule(context):
        """A   rule added for this test,
        with no translation."""
        yield from ()

    description = "A rule added for this test, with no translation."
    committed = check.stale_rule_descriptions(check.rules_catalogue_path("de"))
    assert committed == [f"TEST-1: {description}"]

    first = findings.REGISTRY["CODE-1"].english_description
    path = rule_messages.catalogue_path("de", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        f'msgid "{first}"\nmsgstr "Übersetzt."\n\n'
        'msgid "A rule that is gone."\nmsgstr "Weg."\n\n'
        'msgid "A rule added for this test, with a translation."\n'
        'msgstr "Eine Regel mit Übersetzung."\n',
        encoding="utf-8",
    )
    rule_messages.merge("de", tmp_path)
    merged = {m.id: m for m in check.read_catalogue(path) if m.id}
    assert merged[first].string == "Übersetzt."
    assert "A rule that is gone." not in merged
    assert merged[description].fuzzy  # the reworded docstring's old translation
    assert check.stale_rule_descriptions(path) == []
    assert f"fuzzy: {description!r}" in check.catalogue_problems(path)
    untranslated = [p for p in check.catalogue_problems(path) if "untranslated" in p]
    assert len(untranslated) == len(findings.rules()) - 2


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_catalogue_holds_every_msgid_of_todays_source(language):
    missing = check.stale_msgids(_catalogue(language))
    assert missing == [], (
        f"{len(missing)} msgids marked in the source are not in locale/{language} "
        "(run `make messages` and translate them):\n" + "\n".join(missing)
    )


def test_catalogue_checks_catch_untranslated_fuzzy_and_stale(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Glossary"\nmsgstr "Glossar"\n\n'
        'msgid "Log in"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Log out"\nmsgstr "Abmelden"\n',
        encoding="utf-8",
    )
    assert check.catalogue_problems(po) == [
        "untranslated: 'Log in'",
        "fuzzy: 'Log out'",
    ]
    # Today's source marks far more than these three (base.html's "Skip to content").
    assert "Skip to content" in check.stale_msgids(po)
    assert "Glossary" not in check.stale_msgids(po)


# The detector ----------------------------------------------------------------------


@pytest.mark.django_db
def test_walk_catches_an_unmarked_sentence_on_a_real_page(client, settings, tmp_path):
    """The login page with one sentence nobody marked and one marked heading
    replaced by its English: both are reported, the rest of the page is not."""
    catalogue = check.read_catalogue(_catalogue("de"))
    (tmp_path / "registration").mkdir()
    (tmp_path / "registration" / "login.html").write_text(
        '{% extends "registration/form_page.html" %}{% load i18n %}'
        "{% block heading %}Log in{% endblock heading %}"
        "{% block intro %}<p>Your password is checked by the help desk.</p>"
        "{% endblock intro %}"
        '{% block submit_label %}{% translate "Log in" %}{% endblock submit_label %}',
        encoding="utf-8",
    )
    django_engine, *others = settings.TEMPLATES
    settings.TEMPLATES = [
        {**django_engine, "DIRS": [tmp_path, *django_engine["DIRS"]]},
        *others,
    ]
    response = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="de")
    found = check.offences(
        "login",
        response.content.decode(),
        language="de",
        pieces=check.english_pieces(catalogue),
        data=[],
    )
    assert [(o.kind, o.text) for o in found] == [
        ("catalogue", "Log in"),
        ("english", "Your password is checked by the help desk."),
    ]


# The walk --------------------------------------------------------------------------

# Every named URL is walked or said here why not (test_every_page_is_walked).
NOT_PAGES = {
    "set_language": "POST only (the language switch)",
    "oidc_start": "a redirect to the OpenID Connect provider (404 when none is "
    "configured); its button is checked in German in test_oidc_sign_in",
    "oidc_callback": "the provider's redirect back (test_oidc_sign_in)",
    "two_factor_verify": "only with an authenticator set up (else a redirect to "
    "the setup page); checked in German and French in test_two_factor",
    "recovery_codes_new": "POST only",
    "account_data": "a zip file",
    "verify_email_resend": "POST only",
    "logout": "POST only",
    "proposals:row": "POST only (row buttons)",
    "proposals:chart": "an SVG chart",
    "proposals:review_send": "POST only",
    "proposals:review_comment": "POST only",
    "proposals:review_queue_csv": "a CSV file",
    "proposals:staff_assign": "POST only",
    "proposals:staff_assess": "POST only",
    "proposals:staff_comment": "POST only",
    "proposals:staff_set_status": "POST only",
    "proposals:review_queue_bulk": "POST only: its check page is walked in every "
    "language by test_translations_posted",
    "proposals:review_view_save": "POST only",
    "proposals:use_plan_total": "POST only (a finding's action; it redirects)",
    "proposals:review_view_delete": "POST only",
    "proposals:review_view_share": "POST only",
    "proposals:staff_reply_insert": "POST only (its htmx answer is the comment box)",
    "proposals:export_markdown": "a Markdown file (the portal's English)",
    "proposals:export_pdf_file": "a PDF file (the portal's English)",
    "proposals:export_pdf_retry": "POST only",
    "proposals:export_pdf_status": "walked: export_pdf redirects to it",
    "proposals:export_json": "a JSON file (the portal's English)",
    "proposals:paste_undo": "POST only",
    "proposals:logs_undo": "POST only",
    "proposals:logs_retry": "POST only",
    "proposals:logs_status": "needs a reading of the person's: its German and "
    "French are checked in test_log_reading_worker",
    "proposals:retarget_copy": "POST only",
    "proposals:kit_zip": "a zip file (Slurm scripts and a README)",
    "proposals:team_invite": "POST only",
    "proposals:team_revoke": "POST only",
    "proposals:team_role": "POST only",
    "proposals:team_remove": "POST only",
    "proposals:team_leave": "POST only",
    "proposals:team_notifications": "POST only",
    "proposals:invitation_accept": "POST only",
    "proposals:archive": "POST only",
    "proposals:duplicate": "POST only",
    "proposals:landing": "a redirect after login",
    "proposals:detail": "a redirect to the current step",
    "proposals:edit": "a redirect to the first step",
    "proposals:cutoffs_ics": "an iCalendar file (parsed in test_calls)",
    "proposals:proposal_cutoff_ics": "an iCalendar file (parsed in test_calls)",
}
# The call router's answers: an academic in the Netherlands (a route fits, another
# does not, a cut-off is shown).
ROUTER_ANSWERS = (
    "organisation_kind=academic&country=NL&work=research&accelerator=any"
    "&experience=some&gpu_hours=20000&zone=Europe/Berlin"
)
_routes = __import__("proposals.migrations.0040_routes", fromlist=["load"])


def _anonymous_pages(ctx):
    return [
        ("home", reverse("home")),
        ("glossary", reverse("proposals:glossary")),
        ("guide", reverse("proposals:guide")),
        ("calls", reverse("proposals:calls")),
        ("calls-answered", reverse("proposals:calls") + "?" + ROUTER_ANSWERS),
        ("rules", reverse("proposals:rules")),
        ("privacy", reverse("privacy")),
        ("accessibility", reverse("accessibility")),
        ("login", reverse("login")),
        ("signup", reverse("signup")),
        ("signup_done", reverse("signup_done")),
        ("password_reset", reverse("password_reset")),
        ("password_reset_done", reverse("password_reset_done")),
        ("password_reset_confirm", reverse("password_reset_confirm", args=["MQ", "x"])),
        ("password_reset_complete", reverse("password_reset_complete")),
        ("verify_email", reverse("verify_email", args=["MQ", "x"])),
        ("not-found", "/no-such-page/"),
    ]


def _applicant_pages(ctx):
    draft, sent = ctx["draft"].pk, ctx["sent"].pk
    pages = [
        ("list", reverse("proposals:list")),
        ("create", reverse("proposals:create")),
        (
            "calls_start",
            reverse("proposals:calls_start", args=["ai-for-science"])
            + "?"
            + ROUTER_ANSWERS,
        ),
        ("account_settings", reverse("account_settings")),
        ("account_delete", reverse("account_delete")),
        ("password_change", reverse("password_change")),
        ("password_change_done", reverse("password_change_done")),
        ("delete", reverse("proposals:delete", args=[draft])),
        ("review_status", reverse("proposals:review_status", args=[sent])),
        (
            "review_step_comments",
            reverse("proposals:review_step_comments", args=[sent, "scalability"]),
        ),
        ("import_json", reverse("proposals:import_json")),
        (
            "import_json_revision",
            reverse("proposals:import_json_revision", args=[draft]),
        ),
        ("export_portal", reverse("proposals:export_portal", args=[draft])),
        (
            "export_markdown_view",
            reverse("proposals:export_markdown_view", args=[draft]),
        ),
        ("export_pdf", reverse("proposals:export_pdf", args=[draft])),
        ("paste", reverse("proposals:paste", args=[draft, "measurements"])),
        ("logs", reverse("proposals:logs", args=[draft])),
        ("compare_systems", reverse("proposals:compare_systems", args=[draft])),
        ("kit", reverse("proposals:kit", args=[draft])),
        ("team", reverse("proposals:team", args=[draft])),
        (
            "team_transfer",
            reverse("proposals:team_transfer", args=[draft, ctx["member"].pk]),
        ),
        ("invitation", reverse("proposals:invitation", args=[ctx["token"]])),
    ]
    pages += [
        (f"step:{slug}", reverse("proposals:step", args=[draft, slug]))
        for slug in STEP_SLUGS
    ]
    return pages


def _staff_pages(ctx):
    sent = ctx["sent"].pk
    return [
        ("review_queue", reverse("proposals:review_queue")),
        ("review_queue-all", reverse("proposals:review_queue") + "?show=all&late=on"),
        ("staff_review", reverse("proposals:staff_review", args=[sent])),
        (
            "staff_review-r1",
            reverse("proposals:staff_review", args=[sent]) + "?revision=1",
        ),
        ("staff_diff", reverse("proposals:staff_diff", args=[sent]) + "?a=1&b=current"),
        (
            "staff-portal",
            reverse("proposals:export_portal", args=[sent]) + "?revision=1",
        ),
        ("staff_conflicts", reverse("proposals:staff_conflicts")),
        ("two_factor_setup", reverse("two_factor_setup")),
        ("staff_settings", reverse("proposals:staff_settings")),
    ]


WALKS = {
    "anonymous": (None, _anonymous_pages),
    "applicant": ("demo", _applicant_pages),
    "staff": ("staff", _staff_pages),
}
# Pages that are not 200 on purpose.
STATUS = {"not-found": 404, "password_reset_confirm": 200, "verify_email": 400}


def _named_urls(resolver=None, namespace=""):
    for pattern in (resolver or get_resolver()).url_patterns:
        if hasattr(pattern, "url_patterns"):
            if pattern.namespace == "admin":
                continue
            yield from _named_urls(pattern, pattern.namespace or namespace)
        elif pattern.name:
            yield f"{namespace}:{pattern.name}" if namespace else pattern.name


def test_every_page_is_walked():
    walked = {
        name
        for _, pages in WALKS.values()
        for name, _ in pages(_FakeContext())
        if not name.startswith("step:")
    } | {"proposals:step"}
    walked = {n if ":" in n or n in _ROOT_NAMES else f"proposals:{n}" for n in walked}
    missing = sorted(set(_named_urls()) - walked - set(NOT_PAGES))
    assert missing == [], f"pages neither walked nor listed in NOT_PAGES: {missing}"


_ROOT_NAMES = {
    "home",
    "privacy",
    "accessibility",
    "login",
    "signup",
    "signup_done",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
    "verify_email",
    "not-found",
    "account_settings",
    "account_delete",
    "two_factor_setup",
    "password_change",
    "password_change_done",
}


class _FakeContext(dict):
    class _Pk:
        pk = 1

    def __missing__(self, key):
        return self._Pk()


@pytest.fixture
def demo(catalogue):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    owner = User.objects.get(username="demo")
    sent = Proposal.objects.filter(owner=owner, review_state__isnull=False).first()
    draft = Proposal.objects.filter(owner=owner, review_state__isnull=True).first()
    # A team: a member, and an invitation not accepted yet.
    colleague = User.objects.create_user("teammate", "teammate@example.eu")
    member = Membership.objects.create(
        proposal=draft, user=colleague, role="editor", since=timezone.now()
    )
    token = services.team_invite(
        proposal=draft, by=owner, email="invited@example.eu", role="viewer"
    )
    # The routes, and a cut-off within a week (the router and the sidebar show it).
    _routes.load_routes(apps, None)
    # The shipped list may hold a cut-off on that very day: the test's replaces it.
    Cutoff.objects.update_or_create(
        route=AccessRoute.objects.get(slug="ai-for-science"),
        date=(timezone.now() + timedelta(days=5)).date(),
        defaults={
            "time": datetime.time(10),
            "source": "test",
            "checked": datetime.date(2026, 12, 5),
        },
    )
    walk_logs.import_logs(sent, owner)
    return {"sent": sent, "draft": draft, "member": member, "token": token}


@pytest.mark.parametrize("language", check.LANGUAGES)
@pytest.mark.parametrize("role", list(WALKS))
def test_no_page_shows_english(client, demo, role, language):
    """Walks every page as ``role`` with a German or French browser; lists each
    string left in English with its page. Fails until every part of the interface is
    marked and its catalogue complete."""
    catalogue = [
        *check.read_catalogue(_catalogue(language)),
        *check.read_catalogue(_rules_catalogue(language)),
    ]
    pieces, names = check.english_pieces(catalogue), check.proper_names(catalogue)
    username, pages = WALKS[role]
    if username:
        client.force_login(User.objects.get(username=username))
    data = check.stored_text() + walk_logs.log_lines()
    found, statuses = [], []
    for name, url in pages(demo):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE=language, follow=True)
        expected = STATUS.get(name, 200)
        if response.status_code != expected:
            statuses.append(f"{name} {url}: {response.status_code}")
            continue
        if "text/html" not in response.get("Content-Type", ""):
            continue
        found += check.offences(
            name,
            response.content.decode(),
            language=language,
            pieces=pieces,
            data=data,
            names=names,
        )
    assert statuses == [], f"pages that did not answer: {statuses}"
    report = "\n".join(str(offence) for offence in found)
    assert not found, (
        f"{len(found)} strings left in English on the pages as {role}, in {language}:\n"
        f"{report}"
    )


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_the_walk_shows_an_imported_logs_provenance(client, demo, language):
    """The staff review page the walk reads shows the provenance of the rows read
    from the sample logs, as text (not a ``pre`` the walk skips): the reader's
    phrases in the language, the log's own lines and the key names marked English."""
    client.force_login(User.objects.get(username="staff"))
    url = reverse("proposals:staff_review", args=[demo["sent"].pk])
    html = " ".join(
        client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode().split()
    )
    assert html.count('data-testid="provenance"') >= 5
    assert "Left out:" not in html and "median over" not in html
    assert '<code lang="en">world_size</code>' in html
    assert '<samp class="d-block text-break ms-3" lang="en">Epoch 0:' in html


@pytest.mark.parametrize(("fmt", "shown"), [("de", "4.217 ms"), ("de_CH", "4'217 ms")])
def test_the_provenance_shows_the_readers_numbers(client, demo, fmt, shown):
    """The staff review page shows a provenance's numbers in the reader's format:
    the stored "4,217 ms" (megatron-2024-8gpus.log) as 4.217 ms or 4'217 ms."""
    staff = User.objects.get(username="staff")
    Preferences.objects.update_or_create(user=staff, defaults={"number_format": fmt})
    client.force_login(staff)
    url = reverse("proposals:staff_review", args=[demo["sent"].pk])
    html = unescape(client.get(url, HTTP_ACCEPT_LANGUAGE="de").content.decode())
    assert f"/ {shown} ≈" in html
    assert "4,217 ms" not in html
