"""The domain type of one code entry, built from the vocabulary.

Its attributes are the code card's fields (the ``codes`` rows of
:data:`.field_catalogue.FIELDS`), in that order, each typed and defaulted by its
``value`` (:mod:`.values`): text and choices are ``str``, references a
``tuple[str, ...]``, the compute estimate's inputs ``float | None``. The format's
``codes[]`` keys (:data:`.formatshape.CODE`) come from the same rows, so a field added
to the code card is in both without a line here. ``fields(CodeEntry)`` lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from .field_catalogue import FIELDS
from .values import entry_type

CODE_FIELDS = tuple(spec for spec in FIELDS if spec.table == "codes")

if TYPE_CHECKING:
    # Made at run time from the vocabulary, so the type checker cannot read its
    # attributes: to it a code entry is Any (a hand-written copy of the fields
    # would be a second list to keep in step).
    CodeEntry: TypeAlias = Any
else:
    CodeEntry = entry_type(
        "CodeEntry",
        CODE_FIELDS,
        doc='One "Code details" entry: a distinct software component.',
        module=__name__,
    )
