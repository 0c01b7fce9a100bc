from django.db import migrations, models

# A revision's row ids (each table's rows in the snapshot's order, so the diff
# compares rows by identity) are part of the record: the update guard of 0003 and
# 0036 covers them too. (SQLite rebuilds the table to add a column with a default,
# which drops the guard: it is made again, as in 0036.)
_0036 = __import__(
    "proposals.migrations.0036_together_revision_stamps", fromlist=["_guard"]
)
GUARDED = (*_0036.GUARDED, "stamps")


def guard_row_ids(apps, schema_editor):
    _0036._guard(schema_editor, (*GUARDED, "row_ids"))


def unguard_row_ids(apps, schema_editor):
    _0036._guard(schema_editor, GUARDED)


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0041_cutoff_reminders"),
    ]

    operations = [
        migrations.AddField(
            model_name="proposalrevision",
            name="row_ids",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(guard_row_ids, unguard_row_ids),
    ]
