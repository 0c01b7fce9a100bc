from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _grant_staff_rights(sender, using="default", **kwargs):
    from proposals import services

    services.staff_group_grant_rights(using=using)


def _create_cache_tables(sender, using="default", verbosity=1, **kwargs):
    from django.core.management import call_command

    call_command("createcachetable", database=using, verbosity=max(verbosity - 1, 0))


class ProposalsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "proposals"
    verbose_name = "AI Factory proposals"

    def ready(self):
        # After every migrate (and test-database flush), once Django has created
        # the permissions: the support staff group holds exactly its admin rights.
        post_migrate.connect(_grant_staff_rights, sender=self)
        # The database cache's table (DJANGO_CACHE_BACKEND=db) comes with migrate: a
        # deployment that forgot `createcachetable` would answer 500 on every step.
        post_migrate.connect(_create_cache_tables, sender=self)
        # The domain's interface text goes through Django's translation (domain/i18n.py).
        from django.utils import translation

        # The call families of the code and the call terms' rows agree (checks.py).
        import proposals.checks  # noqa: F401
        from proposals.domain import i18n

        i18n.install(
            translation.gettext,
            translation.ngettext,
            translation.pgettext,
            translation.get_language,
        )
        # Its memo of translated constants goes when a test changes the catalogues.
        from django.core.signals import setting_changed

        setting_changed.connect(_forget_domain_texts)
        # A signed-in person's chosen language is kept in their session from login on.
        from django.contrib.auth.signals import user_logged_in

        from proposals import localization

        user_logged_in.connect(localization.remember_language_at_login)
        # And whether the session owes the staff's second factor (two_factor.py).
        from proposals import two_factor

        user_logged_in.connect(two_factor.remember_at_login)

        # The in-process copy of the catalogue and call terms forgets itself on edits.
        from proposals import reference_data  # noqa: F401


def _forget_domain_texts(*, setting, **kwargs):
    if setting in {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS"}:
        from proposals.domain import i18n

        i18n.forget()
