"""A second factor for the staff (django-otp: a TOTP authenticator app, and recovery
codes as static tokens).

Who must pass it at each sign-in, before any page opens (the admin included): anyone
with a confirmed authenticator (only staff can set one up), and, with
``DJANGO_STAFF_2FA=required``, every staff member (support staff, staff status,
superuser), who is sent to set one up first. Sign-in with a password or with the
OpenID Connect provider alike: the check is on the session, after either.
"""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode
from django_otp import user_has_device
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from proposals import selectors

# Names of the two devices a staff member has (shown in the admin).
AUTHENTICATOR_NAME = "Authenticator app"
RECOVERY_NAME = "Recovery codes"
RECOVERY_CODES = 10
# Whether this session owes the second factor: decided when the person signs in
# (``user_logged_in``), so a request costs no query for it.
_OWED_KEY = "second_factor_owed"


def is_staff_member(user) -> bool:
    """Support staff, staff status (the admin) or superuser."""
    return bool(
        user.is_staff or user.is_superuser or selectors.user_is_support_staff(user=user)
    )


def required_for(user) -> bool:
    """Whether ``user`` must have a second factor (``DJANGO_STAFF_2FA=required``)."""
    return settings.STAFF_2FA == "required" and is_staff_member(user)


def authenticator(user) -> TOTPDevice | None:
    """``user``'s confirmed authenticator app, if any."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


def recovery_device(user) -> StaticDevice | None:
    return StaticDevice.objects.filter(user=user, name=RECOVERY_NAME).first()


def needs_second_factor(user) -> bool:
    """Whether this (signed-in) ``user`` must pass a second factor to go on."""
    return user_has_device(user, confirmed=True) or required_for(user)


def _open_paths() -> tuple[str, ...]:
    """What a person who still owes the second factor may reach."""
    return (
        reverse("two_factor_verify"),
        reverse("two_factor_setup"),
        reverse("logout"),
        "/i18n/",
        "/" + settings.STATIC_URL.lstrip("/"),
    )


def remember_at_login(sender, request, user, **kwargs):
    """``user_logged_in``: whether this session must pass the second factor (a
    person made staff, or given an authenticator, is asked from their next
    sign-in on)."""
    if request is not None and hasattr(request, "session"):
        request.session[_OWED_KEY] = needs_second_factor(user)


class SecondFactorMiddleware:
    """Sends a signed-in person who owes the second factor to the page that asks
    for it (or, required and not set up, to the page that sets it up); after
    django_otp's ``OTPMiddleware``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return self.get_response(request)
        owed = request.session.get(_OWED_KEY)
        if owed is None:  # a session from before this check existed
            owed = request.session[_OWED_KEY] = needs_second_factor(user)
        if not owed or user.is_verified() or request.path.startswith(_open_paths()):
            return self.get_response(request)
        page = "two_factor_verify" if authenticator(user) else "two_factor_setup"
        htmx = request.headers.get("HX-Request") == "true"
        after = request.get_full_path() if request.method == "GET" and not htmx else ""
        target = reverse(page)
        if after:
            target += "?" + urlencode({"next": after})
        if htmx:
            response = HttpResponse(status=403)
            response["HX-Redirect"] = target
            return response
        return redirect(target)


def qr_data_uri(text: str) -> str:
    """``text`` as a QR code, an SVG in a ``data:`` address (the page's CSP allows
    images from ``data:``; nothing is fetched from elsewhere)."""
    import base64

    import qrcode
    import qrcode.image.svg

    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage)
    svg = image.to_string(encoding="unicode").encode()
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def key_for_typing(device: TOTPDevice) -> str:
    """The device's key as an authenticator app asks for it (base32, in groups of
    four), for a person who cannot scan the code."""
    import base64

    key = base64.b32encode(device.bin_key).decode("ascii").rstrip("=")
    return " ".join(key[i : i + 4] for i in range(0, len(key), 4))
