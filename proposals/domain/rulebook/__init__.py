"""The rule catalogue: one small generator per reviewer check, one module per family.

Importing this package registers every rule with ``findings.rule``; the domain
package's ``__init__`` does so, so ``findings.rules()`` always sees all of them.
Each family keeps the vocabulary only it uses (keyword patterns, thresholds, required
fields) beside its rules; ``common`` holds what several families share.
"""

from . import (
    codes,
    compute,
    eligibility,
    optimisation,
    planning,
    scalability,
    scalability_rows,
    selection,
    tier,
)

__all__ = [
    "codes",
    "compute",
    "eligibility",
    "optimisation",
    "planning",
    "scalability",
    "scalability_rows",
    "selection",
    "tier",
]
