"""Start the test provider: ``python -m tests.oidc_provider.serve`` with
``OIDC_PROVIDER_PORT``, ``OIDC_PROVIDER_DB`` and ``OIDC_PROVIDER_SETUP`` (a JSON file:
the client and the people) in the environment. It migrates its own database,
registers the client and the people, then serves on 127.0.0.1 until stopped."""

import json
import os
import sys


def _setup(spec: dict) -> None:
    from django.contrib.auth.models import Group, User
    from oauth2_provider.models import Application

    from tests.oidc_provider.claims import VERIFIED_GROUP

    verified, _ = Group.objects.get_or_create(name=VERIFIED_GROUP)
    client = spec["client"]
    Application.objects.update_or_create(
        client_id=client["id"],
        defaults={
            "name": "AI Factory wizard (tests)",
            "client_secret": client["secret"],  # hashed on save
            "client_type": Application.CLIENT_CONFIDENTIAL,
            "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
            "redirect_uris": " ".join(client["redirect_uris"]),
            "algorithm": Application.RS256_ALGORITHM,
            "skip_authorization": True,
        },
    )
    for person in spec["people"]:
        user, _ = User.objects.get_or_create(username=person["username"])
        user.email = person["email"]
        user.first_name = person.get("first_name", "")
        user.last_name = person.get("last_name", "")
        user.set_password(person["password"])
        user.save()
        if person.get("email_verified"):
            user.groups.add(verified)


def main() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    with open(os.environ["OIDC_PROVIDER_SETUP"], encoding="utf-8") as spec:
        _setup(json.load(spec))
    port = os.environ["OIDC_PROVIDER_PORT"]
    sys.stdout.write(f"test provider on 127.0.0.1:{port}\n")
    sys.stdout.flush()
    call_command("runserver", f"127.0.0.1:{port}", use_reloader=False)


if __name__ == "__main__":
    main()
