"""The staff queue's search on PostgreSQL: trigram GIN indexes that serve
``icontains`` (``UPPER(column) LIKE UPPER('%text%')``) on the proposal's title and
organisation name, instead of a sequential scan. Other databases (SQLite in
development and tests) get nothing: the search works there unindexed.

The indexes live only in the database (no model state): they match the expression
Django writes for ``icontains``, which the queue's search uses. ``fastupdate = off``:
a changed title goes straight into the index instead of a pending list, which would
make searches slower and the planner's estimates wrong until the next vacuum.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

TABLE = "proposals_proposal"
# index name -> column; the expression is the one ``icontains`` compares.
INDEXES = {
    "proposal_title_trgm": "title",
    "proposal_org_trgm": "organisation_name",
}


def add_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, column in INDEXES.items():
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "{name}" ON "{TABLE}" '
            f'USING gin ((UPPER("{column}"::text)) gin_trgm_ops) '
            "WITH (fastupdate = off)"
        )


def remove_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0017_pdf_export"),
    ]

    operations = [
        # A no-op on databases other than PostgreSQL.
        TrigramExtension(),
        migrations.RunPython(add_indexes, remove_indexes),
    ]
