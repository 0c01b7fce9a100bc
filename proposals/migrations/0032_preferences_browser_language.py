from django.db import migrations, models


class Migration(migrations.Migration):
    """The page language of a person's last sign-in: their e-mails' language while
    they let the browser choose the interface's."""

    dependencies = [
        ("proposals", "0031_preferences_language"),
    ]

    operations = [
        migrations.AddField(
            model_name="preferences",
            name="browser_language",
            field=models.CharField(
                blank=True, default="", editable=False, max_length=16
            ),
        ),
    ]
