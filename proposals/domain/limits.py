"""How much one proposal may hold: the one place for these limits.

The models take their text lengths from here (so the wizard's forms refuse what
they refuse), and the JSON format declares the same limits, so an imported file can
never hold what the wizard would refuse. Row limits are far above any real proposal
and keep one import, one wizard step and one export cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

# Characters per text field (the models' ``max_length``).
NARRATIVE_CHARS = 20_000  # the two narratives and a code entry's description
JUSTIFICATION_CHARS = 4_000  # storage, transfer, auxiliary services
REFERENCES_CHARS = 4_000  # a code entry's references, one per line, in all
LIBRARIES_CHARS = 1_000
ACTIVITY_CHARS = 300  # a usage period's activity
LINE_CHARS = 200  # titles, names, hardware
VERSION_CHARS = 100
COMMAND_CHARS = 1_000  # a code entry's launch command
UNIT_CHARS = 40
VAT_NUMBER_CHARS = 32

# The names of a proposal's team in the JSON format (``team``): how many, and how
# long each (a full name: a first and a last name of 150 characters each, as
# accounts hold them, and the space between).
MAX_TEAM_NAMES = 100
TEAM_NAME_CHARS = 301

# Rows per repeatable table. The portal asks for the "significant" software
# components (a handful); a scaling table has one row per GPU count and
# configuration; a job plan a row per kind of job; a schedule at most two activities
# per month of the longest (60-month) allocation.
MAX_ROWS = {
    "codes": 50,
    "measurements": 200,
    "jobs": 200,
    "schedule": 120,
}


@dataclass(frozen=True)
class TableRoom:
    """How full table ``kind`` of one proposal is: it holds ``rows`` of at most
    ``MAX_ROWS[kind]``. Every way rows are added (a row's button, a paste, rows read
    from logs, an import, a copy) asks this, so none stores what the format refuses."""

    kind: str
    rows: int

    @property
    def most(self) -> int:
        return MAX_ROWS[self.kind]

    @property
    def left(self) -> int:
        """How many more rows fit."""
        return max(self.most - self.rows, 0)

    @property
    def full(self) -> bool:
        return self.rows >= self.most

    @property
    def over(self) -> int:
        """How many rows beyond the limit it holds (a draft stored before every
        way in checked the limit)."""
        return max(self.rows - self.most, 0)

    def fits(self, adding: int) -> bool:
        """Whether ``adding`` more rows fit."""
        return adding <= self.left


# A whole document: the upload limit, and how deeply JSON values may nest (the
# format itself needs four levels: document > scalability > jobs > a job).
MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 4
