"""The staff's second factor (django-otp): with DJANGO_STAFF_2FA=required, staff set
up an authenticator app and pass it at each sign-in before any page (the admin, the
review queue) opens. The codes typed here are computed as an authenticator app does
(RFC 6238, with the standard library) from the key the setup page shows."""

import base64
import hashlib
import hmac
import re
import struct
import time

import pytest
from django.contrib.auth.models import User

from tests.factories import PASSWORD, StaffUserFactory, UserFactory


def totp(key_shown: str, at: float | None = None) -> str:
    """The six-digit code an authenticator app shows for the typed key."""
    key = base64.b32decode(_pad(key_shown))
    counter = int((time.time() if at is None else at) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{number % 1_000_000:06d}"


def _pad(key_shown: str) -> str:
    key = key_shown.replace(" ", "")
    return key + "=" * (-len(key) % 8)


def log_in(client, user):
    answer = client.post(
        "/accounts/login/", {"username": user.username, "password": PASSWORD}
    )
    assert answer.status_code == 302, answer
    return answer


def shown_key(page: str) -> str:
    return re.search(r'data-testid="totp-key"[^>]*>([A-Z2-7 ]+)<', page).group(1)


def set_up(client, next_url="/admin/"):
    """Scan (read the key off the page), type the app's code; the codes shown."""
    page = client.get(f"/accounts/two-factor/setup/?next={next_url}").content.decode()
    assert 'data-testid="totp-qr"' in page and "data:image/svg+xml;base64," in page
    done = client.post(
        "/accounts/two-factor/setup/",
        {"code": totp(shown_key(page)), "next": next_url},
    )
    assert done.status_code == 200
    codes = re.findall(r"<li>([a-z2-7]{8})</li>", done.content.decode())
    assert len(codes) == 10
    return shown_key(page), codes


@pytest.fixture
def required(settings):
    settings.STAFF_2FA = "required"


@pytest.fixture
def admin_user(db, catalogue):
    return UserFactory(username="root", is_staff=True, is_superuser=True)


def test_admin_does_not_open_before_the_second_factor(
    client, admin_user, required, settings
):
    settings.OTP_TOTP_THROTTLE_FACTOR = 0
    log_in(client, admin_user)
    answer = client.get("/admin/")
    assert answer.status_code == 302
    assert answer["Location"] == "/accounts/two-factor/setup/?next=%2Fadmin%2F"
    key, _ = set_up(client)
    assert client.get("/admin/").status_code == 200
    # The next sign-in asks for the code again, before the admin opens.
    client.post("/accounts/logout/")
    log_in(client, admin_user)
    assert client.get("/admin/")["Location"].startswith("/accounts/two-factor/?")
    wrong = client.post("/accounts/two-factor/", {"code": "000000", "next": "/admin/"})
    assert wrong.status_code == 200 and "not right" in wrong.content.decode()
    # (django-otp would make the next try wait a second: OTP_TOTP_THROTTLE_FACTOR)
    right = client.post(
        "/accounts/two-factor/",
        {"code": totp(key, time.time() + 30), "next": "/admin/"},
    )
    assert right["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_support_staff_queue_waits_for_the_code_too(client, catalogue, required):
    staff = StaffUserFactory()
    log_in(client, staff)
    queue = client.get("/staff/review/")
    assert queue.status_code == 302
    assert queue["Location"].startswith("/accounts/two-factor/setup/")
    set_up(client, next_url="/staff/review/")
    assert client.get("/staff/review/").status_code == 200


def test_a_recovery_code_signs_in_once(client, admin_user, required):
    log_in(client, admin_user)
    _, codes = set_up(client)
    client.post("/accounts/logout/")
    log_in(client, admin_user)
    used = client.post("/accounts/two-factor/", {"code": codes[0], "next": "/admin/"})
    assert used["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    client.post("/accounts/logout/")
    log_in(client, admin_user)
    again = client.post("/accounts/two-factor/", {"code": codes[0], "next": "/admin/"})
    assert again.status_code == 200  # spent
    assert client.get("/admin/").status_code == 302


def test_applicants_are_never_asked(client, user, required):
    log_in(client, user)
    assert client.get("/proposals/").status_code == 200
    assert client.get("/accounts/two-factor/setup/").status_code == 404


def test_optional_by_default_until_set_up(client, admin_user):
    log_in(client, admin_user)
    assert client.get("/admin/").status_code == 200
    settings_page = client.get("/accounts/settings/").content.decode()
    assert 'data-testid="second-factor"' in settings_page
    set_up(client)
    client.post("/accounts/logout/")
    log_in(client, admin_user)
    # Set up once, asked at every sign-in, required or not.
    assert client.get("/admin/")["Location"].startswith("/accounts/two-factor/")


def test_setup_code_must_be_the_apps(client, admin_user, required):
    log_in(client, admin_user)
    page = client.get("/accounts/two-factor/setup/").content.decode()
    key = shown_key(page)
    wrong = client.post(
        "/accounts/two-factor/setup/", {"code": totp(key, time.time() - 600)}
    )
    assert "not right" in wrong.content.decode()
    assert client.get("/admin/").status_code == 302
    # The same key until it is confirmed: a reload does not change the QR code.
    again = client.get("/accounts/two-factor/setup/").content.decode()
    assert shown_key(again) == key


def test_password_login_alone_is_refused_even_for_htmx(client, admin_user, required):
    log_in(client, admin_user)
    answer = client.get("/proposals/", headers={"HX-Request": "true"})
    assert answer.status_code == 403
    assert answer["HX-Redirect"] == "/accounts/two-factor/setup/"
    assert User.objects.get(pk=admin_user.pk).is_superuser


@pytest.mark.parametrize(
    ("language", "words"),
    [("de", "Zwei-Faktor-Anmeldung"), ("fr", "Connexion à deux facteurs")],
)
def test_the_code_page_speaks_the_persons_language(
    client, admin_user, required, language, words
):
    log_in(client, admin_user)
    set_up(client)
    client.post("/accounts/logout/")
    log_in(client, admin_user)
    page = client.get("/accounts/two-factor/", headers={"Accept-Language": language})
    assert words in page.content.decode()
