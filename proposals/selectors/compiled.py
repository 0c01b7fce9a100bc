"""Querysets compiled to SQL once per process, for the reads of every keystroke
and of the staff review page.

Compiling the proposal's read (its 36 columns, a join for its owner's preferences)
costs more than running it (about 0.6 ms against 0.05 ms on SQLite): such a read
is compiled once, with placeholder values that each call replaces by its own, and
its rows are turned into model instances the way Django's ``ModelIterable`` does
(the columns' converters, ``Model.from_db``, the ``select_related`` objects
through Django's own populators, annotations set as attributes).

Only a query whose SQL does not depend on its values may be compiled: a value is
always a parameter of the same comparison (never ``None``, which would be ``IS
NULL``, nor a list, whose length is in the SQL)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

# Placeholder values for the parameters of a query compiled once: whole numbers no
# primary key takes, replaced at each run by the caller's values, in the order the
# SQL asks for them.
PLACEHOLDERS = (-7_000_001, -7_000_002, -7_000_003)


@dataclass(frozen=True)
class _Constant:
    value: object


@dataclass(frozen=True)
class _Compiled:
    sql: str
    # Each SQL parameter: which of the caller's values (by position) it is, or
    # the query's own constant (``_Constant``: a role's name in a ``CASE``).
    order: tuple
    model: type[Model]
    # The model's columns: (position in the row, attribute name).
    fields: tuple[tuple[int, str], ...]
    # Annotations: (position in the row, attribute name).
    annotations: tuple[tuple[int, str], ...]
    # (position, converters, expression) for the columns that have converters.
    converters: tuple[tuple[int, tuple, object], ...]
    # Django's populators of the ``select_related`` objects (each reads its own
    # columns of the row).
    related: tuple


class CompiledQuery:
    """The rows of ``build(*placeholders)`` as model instances (``many``: every
    row, :meth:`all`; else the first, :meth:`first`), its SQL compiled at the first
    call for the database in use and reused after (or before the first call, by
    :meth:`compile_all`: a gunicorn worker's warm-up). ``placeholders``: the values
    the query is built with, replaced at each call by the caller's (by default the
    first ``arity`` of ``PLACEHOLDERS``; a text value needs a text placeholder)."""

    every: list[CompiledQuery] = []

    def __init__(
        self,
        build: Callable[..., QuerySet],
        arity: int = 0,
        *,
        placeholders: tuple = (),
        many: bool = False,
    ) -> None:
        self.build = build
        self.placeholders = placeholders or PLACEHOLDERS[:arity]
        self.many = many
        self._by_vendor: dict[str, _Compiled] = {}
        CompiledQuery.every.append(self)

    @classmethod
    def compile_all(cls) -> None:
        """Compile every query made so far for the database in use."""
        for query in cls.every:
            query._compiled()

    def _compiled(self) -> _Compiled:
        found = self._by_vendor.get(connection.vendor)
        if found is not None:
            return found
        placeholders = self.placeholders
        queryset = self.build(*placeholders)
        if not self.many:
            queryset = queryset[:1]
        compiler = queryset.query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        order = tuple(
            placeholders.index(value) if value in placeholders else _Constant(value)
            for value in params
        )
        klass = compiler.klass_info
        fields = tuple(
            (index, compiler.select[index][0].target.attname)
            for index in klass["select_fields"]
        )
        expressions = [column for column, _sql, _alias in compiler.select]
        converters = tuple(
            (index, tuple(found), expression)
            for index, (found, expression) in compiler.get_converters(
                expressions
            ).items()
        )
        built = _Compiled(
            sql=sql,
            order=order,
            model=klass["model"],
            fields=fields,
            annotations=tuple(
                (index, name) for name, index in compiler.annotation_col_map.items()
            ),
            converters=converters,
            related=tuple(
                get_related_populators(klass, compiler.select, connection.alias)
            ),
        )
        self._by_vendor[connection.vendor] = built
        return built

    def first(self, *values) -> Model | None:
        """The first row for ``values`` (in ``build``'s order), or ``None``."""
        if self.many:
            raise TypeError("a query of many rows: all()")
        found = self._run(self._compiled(), values)
        return found[0] if found else None

    def all(self, *values) -> list[Model]:
        """Every row for ``values`` (in ``build``'s order), in the query's order."""
        if not self.many:
            raise TypeError("a query of one row: first()")
        return self._run(self._compiled(), values)

    @staticmethod
    def _run(compiled: _Compiled, values) -> list[Model]:
        with connection.cursor() as cursor:
            cursor.execute(
                compiled.sql,
                [
                    i.value if isinstance(i, _Constant) else values[i]
                    for i in compiled.order
                ],
            )
            records = cursor.fetchall()
        names = [name for _index, name in compiled.fields]
        instances = []
        for record in records:
            row = list(record)
            for index, converters, expression in compiled.converters:
                for converter in converters:
                    row[index] = converter(row[index], expression, connection)
            instance = compiled.model.from_db(
                connection.alias,
                names,
                [row[index] for index, _name in compiled.fields],
            )
            for populator in compiled.related:
                populator.populate(row, instance)
            for index, name in compiled.annotations:
                setattr(instance, name, row[index])
            instances.append(instance)
        return instances
