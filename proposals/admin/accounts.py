"""Django's user admin, where the administrator vouches for e-mail addresses."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from proposals import selectors, services


class AccountCreationForm(AdminUserCreationForm):
    """An account made by an administrator (a staff colleague, typically) can have
    its e-mail address from the start: the administrator vouches for it, so the
    review mails reach it without a confirmation link."""

    email = forms.EmailField(
        label=gettext_lazy("E-mail address"),
        required=False,
        help_text=gettext_lazy(
            "Counts as confirmed: you vouch for it by creating the account."
        ),
    )
    # Everybody signs in with a password: Django's "password-based authentication:
    # disabled" would make an account that can never sign in (no reset link is
    # ever sent to it), so the password is required.
    usable_password = None

    class Meta(AdminUserCreationForm.Meta):
        fields = ("username", "email")

    def clean_email(self):
        address = self.cleaned_data["email"].strip()
        if address and selectors.account_address_in_use(address=address):
            raise forms.ValidationError(_("Another account already has this address."))
        return address


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    """Django's user admin, where the administrator vouches for addresses: one
    given when the account is made here counts as confirmed, and so does a staff
    account's address set here (or an account's when it joins the staff), so
    that mails to a colleague are never held for a confirmation nobody asked
    for. An applicant's address changed here still needs its owner's
    confirmation. The "confirm" action vouches for any selected account."""

    add_form = AccountCreationForm
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": (
                    "username",
                    "email",
                    "password1",
                    "password2",
                ),
            },
        ),
    )
    actions = ["confirm_addresses"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        user = form.instance
        vouched = not change or (
            {"email", "groups", "is_staff"} & set(form.changed_data)
            and (
                user.is_staff or user.groups.filter(name=selectors.STAFF_GROUP).exists()
            )
        )
        if user.email and vouched and not selectors.account_is_verified(user=user):
            try:
                services.account_verify(user=user)
            except services.AccountError as exc:
                self.message_user(request, str(exc), messages.ERROR)

    @admin.action(
        description=gettext_lazy(
            "Confirm the selected accounts' e-mail addresses (you vouch)"
        ),
        permissions=["change"],
    )
    def confirm_addresses(self, request, queryset):
        confirmed, refused = 0, []
        for user in queryset:
            try:
                services.account_verify(user=user)
            except services.AccountError as exc:
                refused.append(f"{user.get_username()}: {exc}")
            else:
                confirmed += 1
        self.message_user(
            request,
            _("%(count)s address(es) confirmed.") % {"count": confirmed},
        )
        for problem in refused:
            self.message_user(request, problem, messages.ERROR)
