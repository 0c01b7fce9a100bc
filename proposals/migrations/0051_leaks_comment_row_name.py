"""A comment keeps its row's name, not the row's label in its author's language:
the label ("Job type 1") is made in each reader's language (issue 36)."""

import re

from django.db import migrations

# A stored label: "<item> <number>" with the row's name in brackets, in any language
# ("Job type 2 (fine-tuning)", "Jobtyp 1").
_LABEL = re.compile(r"^.*?\d+(?: \((?P<name>.*)\))?$", re.S)


def labels_to_names(apps, schema_editor):
    Comment = apps.get_model("proposals", "ReviewComment")
    for pk, label in Comment.objects.exclude(row_name="").values_list("pk", "row_name"):
        match = _LABEL.match(label)
        name = (match.group("name") or "") if match else label
        Comment.objects.filter(pk=pk).update(row_name=name)


class Migration(migrations.Migration):
    dependencies = [("proposals", "0050_kit_scaling_kit_record")]

    operations = [
        migrations.RenameField("reviewcomment", "row_label", "row_name"),
        migrations.RunPython(labels_to_names, migrations.RunPython.noop),
    ]
