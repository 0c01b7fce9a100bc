"""``makemessages`` as this project runs it: catalogues without source locations
(``--no-location`` is the default, so adding two strings changes those two entries,
not the ``#:`` lines of hundreds) and no fuzzy matching (msgmerge's guesses, such as
"Licence" pre-filled with the translation of "Evidence", never enter a catalogue:
a new string arrives untranslated and the catalogue tests ask for it). Ahead of
Django's own command because ``aifactory`` is an installed app."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    msgmerge_options = [*makemessages.Command.msgmerge_options, "--no-fuzzy-matching"]

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.set_defaults(no_location=True)

    def handle(self, *args, **options):
        if options.get("add_location"):  # asked for: locations it is
            options["no_location"] = False
        return super().handle(*args, **options)
