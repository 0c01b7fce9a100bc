"""``make messages`` reads the Jinja2 templates as Jinja2: their messages reach
the catalogue with the msgids a Django template gives the same text, so both
engines share one entry (aifactory/management/commands/makemessages.py)."""

from pathlib import Path

from django.conf import settings
from django.template import engines
from django.utils import translation

from aifactory.management.commands.makemessages import BuildFile, jinja_messages

TEMPLATE = """{% macro box(n, name) %}
{{ _("Saved") }} {{ pgettext("the staff review of a proposal", "Review") }}
{% trans count=n %}
  {{ n }} error
{% pluralize %}
  {{ n }} errors
{% endtrans %}
{{ _("%(lead)s, for example:")|format(lead=name) }} {{ _(name) }}
{% endmacro %}
"""


def test_each_message_becomes_a_gettext_call_on_its_line():
    lines = jinja_messages(TEMPLATE).split("\n")
    assert len(lines) == len(TEMPLATE.split("\n"))
    assert lines[1] == (
        "gettext('Saved');pgettext('the staff review of a proposal', 'Review');"
    )
    # The block's msgid and plural, trimmed, as {% blocktranslate trimmed count %}.
    assert lines[2] == "ngettext('%(n)s error', '%(n)s errors', 1);"
    # A message that is not a literal (``_(name)``) has nothing to extract.
    assert lines[7] == "gettext('%(lead)s, for example:');"
    assert lines[0] == lines[3] == lines[8] == ""


def test_the_engine_renders_the_msgids_it_extracts():
    macro = engines["jinja2"].env.from_string(TEMPLATE).module.box
    with translation.override("de"):
        written = str(macro(2, "x"))
    # The German catalogue's entries for the very msgids extracted above.
    assert "Gespeichert" in written and "2 Fehler" in written


def test_the_jinja2_directory_is_read_as_jinja2(tmp_path):
    root = Path(settings.TEMPLATES[1]["DIRS"][0])
    template = next(root.rglob("*.html"))

    class Translatable:
        path = str(template)
        file = template.name
        dirpath = str(tmp_path)

    build = BuildFile(None, "django", Translatable())
    assert build.is_jinja
    build.preprocess()
    written = Path(build.work_path).read_text()
    assert written == jinja_messages(template.read_text())
    other = Path(settings.BASE_DIR, "templates", "base.html")

    class DjangoTemplate(Translatable):
        path = str(other)
        file = other.name

    assert not BuildFile(None, "django", DjangoTemplate()).is_jinja
