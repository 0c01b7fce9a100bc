"""Whether the person chose their time zone: those whose zone is not the default
did; the others are offered their browser's zone until they submit one."""

from django.db import migrations, models

DEFAULT = "Europe/Brussels"


def mark_chosen(apps, schema_editor):
    Preferences = apps.get_model("proposals", "Preferences")
    Preferences.objects.exclude(time_zone=DEFAULT).update(time_zone_chosen=True)


class Migration(migrations.Migration):
    dependencies = [("proposals", "0052_systems_announced")]

    operations = [
        migrations.AddField(
            model_name="preferences",
            name="time_zone_chosen",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(mark_chosen, migrations.RunPython.noop),
    ]
