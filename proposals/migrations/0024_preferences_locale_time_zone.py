"""Number formats become CLDR locales (the three old names, en, de and fi, are
locales already), and a person's time zone is kept."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("proposals", "0023_comment_row_anchor")]

    operations = [
        migrations.AlterField(
            model_name="preferences",
            name="number_format",
            field=models.CharField(
                default="en",
                help_text="Numbers you type in the wizard are read this way, and "
                "every number and date the wizard shows you (on its pages and in its "
                "e-mails) is printed this way. The portal text, the exports and the "
                "JSON file always use the portal's plain form (18176, 0.2).",
                max_length=32,
                verbose_name="How you write numbers and dates",
            ),
        ),
        migrations.AddField(
            model_name="preferences",
            name="time_zone",
            field=models.CharField(
                default="Europe/Brussels",
                help_text="Cut-offs, waiting times and histories are shown in this "
                "zone, with its name (CET, CEST).",
                max_length=64,
                verbose_name="Your time zone",
            ),
        ),
    ]
