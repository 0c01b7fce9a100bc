"""The rendering worker's heartbeat on a PDF export: a render whose worker died is
offered again after 30 s without one, instead of after 5 minutes."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0019_proposal_owner_detachable"),
    ]

    operations = [
        migrations.AddField(
            model_name="pdfexport",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
