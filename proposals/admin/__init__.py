"""The admin, one module per kind of record: ``catalogue`` (kept by the
administrators), ``records`` (read-only) and ``accounts`` (the user admin). Importing
the package registers them all."""

from . import accounts, catalogue, records

__all__ = ["accounts", "catalogue", "records"]
