"""The account forms: signing up, preferences, deleting the account."""

from zoneinfo import available_timezones

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.conf import settings
from django.contrib.auth.forms import BaseUserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from proposals.domain.numbers import number_formats
from proposals.models import Preferences


class SignUpForm(BaseUserCreationForm):
    """Checks only what the person typed. Whether the username or address is taken
    is decided by ``services.account_signup`` and told only to the address, so that
    the form reveals nothing about other accounts."""

    email = forms.EmailField(
        required=True,
        help_text=_(
            "We send a link to this address to finish creating the account; "
            "it is then used for password resets and review notifications."
        ),
    )

    class Meta(BaseUserCreationForm.Meta):
        model = User
        fields = ["username", "email"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"] = _time_zone_field()
        offer_browser_zone(self.fields["time_zone"])
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", _("Create account")))

    def validate_unique(self):
        """No "a user with that username already exists" (see the class)."""


def _number_format_choices(languages=()):
    """The person's formats first (``languages``), then every other by name."""
    return [(fmt.name, fmt.label) for fmt in number_formats(languages)]


def _time_zone_choices():
    return [(name, name.replace("_", " ")) for name in sorted(available_timezones())]


def offer_browser_zone(field: forms.Field) -> None:
    """Let ``static/js/timezone.js`` select the browser's time zone in ``field``
    (``Intl.DateTimeFormat().resolvedOptions().timeZone``) and say so beside it: the
    person sees it and may change it; nothing is stored until they submit."""
    field.widget.attrs.update(
        {
            "data-browser-zone": "",
            "data-browser-zone-note": _(
                "Taken from your browser: change it if it is not yours."
            ),
        }
    )


def _time_zone_field() -> forms.ChoiceField:
    """The time zone as Settings asks it (the model's label and help); a sign-up
    that sends none keeps the default, unchosen."""
    model_field = Preferences._meta.get_field("time_zone")
    return forms.ChoiceField(
        required=False,
        choices=_time_zone_choices,
        initial=model_field.default,
        label=capfirst(model_field.verbose_name),
        help_text=model_field.help_text,
    )


def _language_choices():
    """Blank (the browser's) first, then each interface language in its own name."""
    return [("", _("As your browser asks")), *settings.LANGUAGES]


class PreferencesForm(forms.ModelForm):
    """The person's interface language, number and date format (every CLDR locale
    with Latin digits) and time zone."""

    language = forms.ChoiceField(choices=_language_choices, required=False)
    number_format = forms.ChoiceField(choices=_number_format_choices)
    time_zone = forms.ChoiceField(choices=_time_zone_choices)

    class Meta:
        model = Preferences
        fields = ["language", "number_format", "time_zone"]

    def __init__(self, *args, languages=(), browser_zone=False, **kwargs):
        """``languages``: the person's (their format, their browser's languages),
        whose number formats head the list; ``browser_zone``: they never chose a
        time zone, so their browser's is offered."""
        super().__init__(*args, **kwargs)
        if browser_zone:
            offer_browser_zone(self.fields["time_zone"])
        if languages:
            self.fields["number_format"].choices = _number_format_choices(languages)
        for name in self.Meta.fields:
            model_field = Preferences._meta.get_field(name)
            # capfirst, not capitalize: "Wie Sie Zahlen und Daten schreiben".
            self.fields[name].label = capfirst(model_field.verbose_name)
            self.fields[name].help_text = model_field.help_text


class AccountDeleteForm(forms.Form):
    """Deleting an account asks for its password (as changing the password does)."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)
        if not user.has_usable_password():
            # An account made by signing in with a provider has no password here:
            # its username confirms instead.
            self.fields["password"] = forms.CharField(
                label=_("Your username"), strip=True
            )

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.has_usable_password():
            if password != self.user.get_username():
                raise ValidationError(
                    _("That is not your username: nothing was deleted."),
                    code="username_incorrect",
                )
            return password
        if not self.user.check_password(password):
            raise ValidationError(
                _("That is not your password: nothing was deleted."),
                code="password_incorrect",
            )
        return password


class SecondFactorForm(forms.Form):
    """The six digits the authenticator app shows (or, at sign-in, a recovery
    code)."""

    code = forms.CharField(
        label=_("Code"),
        max_length=32,
        strip=True,
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "inputmode": "numeric",
                "autofocus": True,
                "spellcheck": "false",
            }
        ),
    )

    def clean_code(self):
        return self.cleaned_data["code"].replace(" ", "").lower()
