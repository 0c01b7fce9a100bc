#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import secrets
import sys

# Commands that only read a file and print: they sign nothing, so in a shell without
# DJANGO_SECRET_KEY they get a throwaway key instead of refusing to start.
FILE_TOOLS = {"assess", "read_log"}


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aifactory.settings")
    if len(sys.argv) > 1 and sys.argv[1] in FILE_TOOLS:
        os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    from django.conf import settings
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018  (loads the settings now)
    except Exception as exc:  # noqa: BLE001  (any broken setting stops every command)
        # A command that cannot run at all exits 2, like an unusable input file.
        sys.stderr.write(f"Cannot run: the settings do not load ({exc})\n")
        sys.exit(2)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
