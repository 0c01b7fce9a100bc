"""The German and French interface: the catalogues are complete and current, and no
page shows a string left in English (tests/web/translation_check.py says how that is
detected); the language comes from the browser, the switch or the person's setting,
and their e-mails come in their language while the portal text stays English."""

import io
import json
import re
import zipfile

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.db import models
from django.urls import get_resolver, reverse
from django.utils import translation

from proposals import notifications, services
from proposals.domain.sections import STEP_SLUGS
from proposals.models import Preferences, Proposal
from tests.web import translation_check as check

# Catalogues ------------------------------------------------------------------------


def _catalogue(language):
    path = check.catalogue_path(language)
    if not path.exists():
        pytest.fail(
            f"{path.relative_to(check.ROOT)} is missing: build it from the fragments "
            "(locale/fragments/*.po) and run `make translations`."
        )
    return path


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_catalogue_has_no_untranslated_or_fuzzy_entry(language):
    problems = check.catalogue_problems(_catalogue(language))
    assert problems == [], f"{len(problems)} in locale/{language}:\n" + "\n".join(
        problems
    )


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

CATALOGUE = [
    ("Save settings", "Einstellungen speichern"),
    (
        "Signed in as <strong>%(name)s</strong>",
        "Angemeldet als <strong>%(name)s</strong>",
    ),
    ("Status", "Status"),  # the same in both: never flagged
]


class _Message:
    def __init__(self, msgid, msgstr):
        self.id, self.string, self.fuzzy, self.context = msgid, msgstr, False, None


def _pieces():
    return check.english_pieces([_Message(a, b) for a, b in CATALOGUE])


def test_detector_flags_marked_but_untranslated_and_unmarked_english():
    html = """<html lang="de"><body>
      <button title="Save settings">Einstellungen speichern</button>
      <span>Signed in as <strong>demo</strong></span>
      <p>Status</p>
      <p>This sentence was never marked for translation, so it stays English.</p>
      <p>Die Zahlen im Portaltext bleiben in der einfachen Form des Portals.</p>
      <p>Vous pouvez le télécharger à tout moment.</p>
      <pre>the and of the code is not checked</pre>
      <div lang="en-GB"><p>The portal text is English on purpose.</p></div>
      <p>Proposal: Detecting paper mills with the help of the literature</p>
    </body></html>"""
    found = check.offences(
        "test-page",
        html,
        language="de",
        pieces=_pieces(),
        data=["Detecting paper mills with the help of the literature"],
    )
    assert [(o.kind, o.text) for o in found] == [
        ("catalogue", "Save settings"),
        ("catalogue", "Signed in as"),
        (
            "english",
            "This sentence was never marked for translation, so it stays English.",
        ),
    ]


def test_detector_flags_the_wrong_page_language():
    found = check.offences(
        "p",
        '<html lang="en-gb"><p>Hallo</p></html>',
        language="fr",
        pieces=set(),
        data=[],
    )
    assert [o.kind for o in found] == ["lang"]


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
    "proposals:export_markdown": "a Markdown file (the portal's English)",
    "proposals:export_pdf_file": "a PDF file (the portal's English)",
    "proposals:export_pdf_retry": "POST only",
    "proposals:export_pdf_status": "walked: export_pdf redirects to it",
    "proposals:export_json": "a JSON file (the portal's English)",
    "proposals:paste_undo": "POST only",
    "proposals:logs_undo": "POST only",
    "proposals:retarget_copy": "POST only",
    "proposals:archive": "POST only",
    "proposals:duplicate": "POST only",
    "proposals:landing": "a redirect after login",
    "proposals:detail": "a redirect to the current step",
    "proposals:edit": "a redirect to the first step",
}


def _anonymous_pages(ctx):
    return [
        ("home", reverse("home")),
        ("glossary", reverse("proposals:glossary")),
        ("guide", reverse("proposals:guide")),
        ("rules", reverse("proposals:rules")),
        ("privacy", reverse("privacy")),
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
    "password_change",
    "password_change_done",
}


class _FakeContext(dict):
    class _Pk:
        pk = 1

    def __missing__(self, key):
        return self._Pk()


def _stored_text() -> list[str]:
    """Every text of two words or more stored in the database (what people typed,
    and the catalogue's names), longest first: the walk leaves it out."""
    values: set[str] = set()

    def collect(value):
        if isinstance(value, str):
            # Sentences and names of two words or more: a single stored word
            # ("training") must not cut the same word out of interface text.
            if len(value.split()) >= 2:
                values.add(" ".join(value.split()))
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, list | tuple):
            for item in value:
                collect(item)

    for model in [*apps.get_app_config("proposals").get_models(), User]:
        fields = [
            f.name
            for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField | models.JSONField)
        ]
        if not fields:
            continue
        for row in model.objects.values_list(*fields):
            collect(list(row))
    return sorted(values, key=len, reverse=True)


@pytest.fixture
def demo(catalogue):
    call_command("load_demo", verbosity=0)
    owner = User.objects.get(username="demo")
    sent = Proposal.objects.filter(owner=owner, review_state__isnull=False).first()
    draft = Proposal.objects.filter(owner=owner, review_state__isnull=True).first()
    return {"sent": sent, "draft": draft}


@pytest.mark.parametrize("language", check.LANGUAGES)
@pytest.mark.parametrize("role", list(WALKS))
def test_no_page_shows_english(client, demo, role, language):
    """Walks every page as ``role`` with a German or French browser; lists each
    string left in English with its page. Fails until every part of the interface is
    marked and its catalogue complete."""
    catalogue = check.read_catalogue(_catalogue(language))
    pieces = check.english_pieces(catalogue)
    username, pages = WALKS[role]
    if username:
        client.force_login(User.objects.get(username=username))
    data = _stored_text()
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
            name, response.content.decode(), language=language, pieces=pieces, data=data
        )
    assert statuses == [], f"pages that did not answer: {statuses}"
    report = "\n".join(str(offence) for offence in found)
    assert not found, (
        f"{len(found)} strings left in English on the pages as {role}, in {language}:\n"
        f"{report}"
    )


# Choosing the language -------------------------------------------------------------


@pytest.mark.django_db
def test_browser_language_sets_page_language_and_headers(client):
    response = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert response["Content-Language"] == "fr"
    assert 'lang="fr"' in response.text[:200]
    vary = {v.strip().lower() for v in response["Vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary
    english = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="it-IT")
    assert english["Content-Language"] == "en-gb"


@pytest.mark.django_db
def test_anonymous_switch_sets_the_language_cookie(client):
    page = client.get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE="en-GB")
    assert 'data-testid="language-switch"' in page.text
    response = client.post(
        reverse("set_language"), {"language": "de", "next": reverse("privacy")}
    )
    assert response.status_code == 302
    again = client.get(reverse("privacy"), HTTP_ACCEPT_LANGUAGE="en-GB")
    assert again["Content-Language"] == "de"


def test_signed_in_choice_wins_over_the_browser(client, user):
    services.preferences_set(user=user, number_format="en_GB", language="de")
    client.force_login(user)
    response = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response["Content-Language"] == "de"
    assert re.search(r'<html lang="de"', response.text)
    # Another session (logging in again) reads a choice changed elsewhere.
    services.preferences_set(user=user, number_format="en_GB", language="")
    client.logout()
    client.force_login(user)
    response = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response["Content-Language"] == "fr"


def test_a_signed_in_request_reads_no_preferences_for_the_language(
    client, user, django_assert_num_queries
):
    """The choice is kept in the session at login: a page that prints no number
    costs no query for the language (session, user, and the page's own)."""
    services.preferences_set(user=user, number_format="en_GB", language="fr")
    client.force_login(user)
    client.get(reverse("privacy"))
    with django_assert_num_queries(4) as captured:
        response = client.get(reverse("privacy"))
    assert response["Content-Language"] == "fr"
    assert not [q for q in captured if "proposals_preferences" in q["sql"]]


def test_a_session_from_before_reads_the_choice_once(client, user):
    services.preferences_set(user=user, number_format="en_GB", language="de")
    client.force_login(user)
    session = client.session
    del session["interface_language"]
    session.save()
    assert client.get(reverse("privacy"))["Content-Language"] == "de"
    assert client.session["interface_language"] == "de"


def test_settings_stores_the_language_and_answers_in_it(client, user):
    services.preferences_set(user=user, number_format="en_GB")
    client.force_login(user)
    page = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="en-GB")
    assert 'name="language"' in page.text
    response = client.post(
        reverse("account_settings"),
        {"language": "de", "number_format": "de_DE", "time_zone": "Europe/Berlin"},
        HTTP_ACCEPT_LANGUAGE="en-GB",
        follow=True,
    )
    assert Preferences.objects.get(user=user).language == "de"
    assert response["Content-Language"] == "de"
    if "Einstellungen gespeichert." not in response.text:
        pytest.fail("locale/de is not compiled with this branch's messages")
    # Labels keep German capitals (capfirst, not capitalize).
    assert "Wie Sie Zahlen und Daten schreiben" in response.text
    # Back to the browser's language.
    client.post(
        reverse("account_settings"),
        {"language": "", "number_format": "de_DE", "time_zone": "Europe/Berlin"},
    )
    assert Preferences.objects.get(user=user).language == ""
    response = client.get(reverse("account_settings"), HTTP_ACCEPT_LANGUAGE="fr")
    assert response["Content-Language"] == "fr"


def test_settings_refuses_a_language_not_offered(client, user):
    client.force_login(user)
    response = client.post(
        reverse("account_settings"),
        {"language": "xx", "number_format": "en_GB", "time_zone": "Europe/Brussels"},
    )
    assert response.status_code == 200
    assert not Preferences.objects.filter(user=user, language="xx").exists()


def test_service_refuses_an_unknown_language(user):
    with pytest.raises(ValueError):
        services.preferences_set(user=user, number_format="en_GB", language="xx")


def test_settings_page_says_the_portal_text_stays_english(client, user):
    client.force_login(user)
    response = client.get(reverse("account_settings"))
    assert "portal's plain English form" in response.text


# E-mails and the portal text ---------------------------------------------------------


def test_mail_is_in_the_recipients_language(submitted, user, staff_user):
    """The applicant chose German, the staff member French: each reads their own,
    whatever language the request that caused the mail was in."""
    services.preferences_set(user=user, number_format="de_DE", language="de")
    services.preferences_set(user=staff_user, number_format="fr_FR", language="fr")
    change = submitted.status_changes.order_by("-pk").first()
    with translation.override("en-gb"):
        to_applicant = notifications.status_to_applicant(change=change)
        to_staff = notifications.submission_to_staff(
            revision=submitted.revisions.first()
        )
    catalogue = translation.trans_real.translation("de")._catalog
    if "Open the review: %(url)s" not in catalogue:
        pytest.fail("locale/de is not compiled with this branch's messages")
    assert "Der Support hat den Status von" in to_applicant[0].body
    assert "Open the review" not in to_staff[0].body
    assert "Ouvrir" in to_staff[0].body


def test_mail_without_a_choice_is_english(submitted, user):
    change = submitted.status_changes.order_by("-pk").first()
    with translation.override("de"):
        mails = notifications.status_to_applicant(change=change)
    assert "See the comments and the history" in mails[0].body


def test_portal_text_is_english_for_a_german_reader(client, user, applicant_proposal):
    services.preferences_set(user=user, number_format="de_DE", language="de")
    client.force_login(user)
    english = client.get(
        reverse("proposals:export_markdown", args=[applicant_proposal.pk])
    ).content
    services.preferences_set(user=user, number_format="en_GB", language="")
    plain = client.get(
        reverse("proposals:export_markdown", args=[applicant_proposal.pk]),
        HTTP_ACCEPT_LANGUAGE="en-GB",
    ).content
    # Only the date in the file name differs, never its text.
    assert english == plain
    assert mail.outbox == []
    assert Preferences.objects.get(user=user).language == ""


def test_data_download_is_english_and_holds_the_language(client, submitted, user):
    """The archive is a JSON file: the portal's English whatever the person reads
    (its status names are not translated), and it holds their language."""
    services.preferences_set(user=user, number_format="de_DE", language="de")
    client.force_login(user)
    response = client.get(reverse("account_data"))
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    summary = json.loads(archive.read("account.json"))
    assert summary["account"]["language"] == "de"
    history = summary["proposals"][0]["status_history"]
    assert history[-1]["to"] == "Submitted for review"


def test_scripts_get_their_texts_in_the_page_language(client, user):
    """The scripts' texts (retrying, copied ...) come with every page as JSON, in
    its language; the scripts fall back to English without them."""
    client.force_login(user)
    response = client.get(reverse("proposals:list"), HTTP_ACCEPT_LANGUAGE="de")
    found = re.search(
        r'<script id="script-messages" type="application/json">(.*?)</script>',
        response.text,
    )
    messages = json.loads(found.group(1))
    assert set(messages) >= {"retrying", "copied", "copyFailed", "shownElsewhere"}
    catalogue = translation.trans_real.translation("de")._catalog
    if "Not saved, retrying…" not in catalogue:
        pytest.fail("locale/de is not compiled with this branch's messages")
    assert messages["retrying"] == "Nicht gespeichert, neuer Versuch…"
    assert set(messages["shownElsewhere"]) == {"one", "other"}


def test_signup_mail_is_in_the_browsers_language(
    client, catalogue, django_capture_on_commit_callbacks
):
    """The person waits for the link on the page they signed up on: the mail is in
    that page's language."""
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("signup"),
            {
                "username": "neuling",
                "email": "neuling@example.eu",
                "password1": "a-long-unusual-passphrase",
                "password2": "a-long-unusual-passphrase",
            },
            HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9",
        )
    (message,) = mail.outbox
    german = translation.trans_real.translation("de")._catalog
    if "Hello %(name)s," not in german:
        pytest.fail("locale/de is not compiled with this branch's messages")
    assert message.subject == (
        "Bestätigen Sie Ihre E-Mail-Adresse für den AI-Factory-Antragsassistenten"
    )
    assert message.body.startswith("Guten Tag neuling,")
