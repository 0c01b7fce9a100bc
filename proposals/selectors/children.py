"""Every row of a proposal's four tables, read in one query."""

from django.db import connection

from proposals.assess import CHILDREN
from proposals.models import (
    Proposal,
)
from proposals.table_rows import ATTRIBUTE


def _child_models():
    return [(kind, Proposal._meta.get_field(kind).related_model) for kind in CHILDREN]


def attach_rows(proposal: Proposal) -> None:
    """Read the rows of every table of ``proposal`` in one ``UNION ALL`` query and
    keep them on it as ``table_rows`` (``table_rows.rows_of(proposal, "jobs")``
    then asks nothing more). Each table's columns have their own places in the union, typed
    (``CAST(NULL AS ...)``) where the row belongs to another table."""
    models, sql, layout = _children_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [proposal.pk] * len(models))
        fetched = cursor.fetchall()
    rows: dict[str, list] = {kind: [] for kind, _ in models}
    for record in fetched:
        kind, model = models[record[0]]
        first, names, converters = layout[record[0]]
        values = list(record[first : first + len(names)])
        for index, expression, field_converters in converters:
            for converter in field_converters:
                values[index] = converter(values[index], expression, connection)
        row = model.from_db(connection.alias, names, values)
        model._meta.get_field("proposal").set_cached_value(row, proposal)
        rows[kind].append(row)
    # Kept on the proposal (``table_rows.rows_of`` reads them): reading them with
    # ``prefetch_related`` costs one query per table (every step's autosave then
    # exceeds its 6 statements, tests/web/test_live.py).
    setattr(
        proposal,
        ATTRIBUTE,
        {
            kind: sorted(rows[kind], key=lambda row: (row.position, row.pk))
            for kind, _model in models
        },
    )


_CHILDREN_QUERIES: dict[str, tuple] = {}


def _children_query():
    """``(models, sql, layout)`` for the database in use, built once: ``layout``
    gives, per table, where its columns start in a result row, their attribute
    names and the converters of the columns that have any."""
    vendor = connection.vendor
    if vendor in _CHILDREN_QUERIES:
        return _CHILDREN_QUERIES[vendor]
    models = _child_models()
    slots = [(kind, f) for kind, model in models for f in model._meta.concrete_fields]
    quote = connection.ops.quote_name
    branches = []
    for index, (kind, model) in enumerate(models):
        columns = [str(index)] + [
            quote(f.column)
            if slot_kind == kind
            else f"CAST(NULL AS {f.cast_db_type(connection)})"
            for slot_kind, f in slots
        ]
        branches.append(
            f"SELECT {', '.join(columns)} FROM {quote(model._meta.db_table)}"
            f" WHERE {quote('proposal_id')} = %s"
        )
    layout = []
    start = 1
    for _kind, model in models:
        fields = model._meta.concrete_fields
        converters = []
        for index, field in enumerate(fields):
            expression = field.get_col(model._meta.db_table)
            found = connection.ops.get_db_converters(
                expression
            ) + field.get_db_converters(connection)
            if found:
                converters.append((index, expression, found))
        layout.append((start, [f.attname for f in fields], converters))
        start += len(fields)
    built = (models, " UNION ALL ".join(branches), layout)
    _CHILDREN_QUERIES[vendor] = built
    return built
