"""An example VAT number (or the business id that stands for it) per country of
incorporation, written as that country writes it: the VAT field's example is the
applicant's country's, never one country's for everybody. Each is a valid number
(format and check digits, :func:`.eligibility.check_vat`; a test keeps it so), taken
from python-stdnum's own documented examples."""

from __future__ import annotations

VAT_EXAMPLES: dict[str, str] = {
    # EU member states (``stdnum.eu.vat``, with the country prefix; Greece's is EL)
    "AT": "ATU13585627",
    "BE": "BE0403019261",
    "BG": "BG175074752",
    "CY": "CY10259033P",
    "CZ": "CZ25123891",
    "DE": "DE136695976",
    "DK": "DK13585628",
    "EE": "EE100931558",
    "ES": "ESB58378431",
    "FI": "FI20774740",
    "FR": "FR40303265045",
    "GR": "EL094259216",
    "HR": "HR33392005961",
    "HU": "HU12892312",
    "IE": "IE6433435OA",
    "IT": "IT00743110157",
    "LT": "LT119511515",
    "LU": "LU15027442",
    "LV": "LV40003521600",
    "MT": "MT11679112",
    "NL": "NL004495445B01",
    "PL": "PL8567346215",
    "PT": "PT501964843",
    "RO": "RO18547290",
    "SE": "SE123456789701",
    "SI": "SI50223054",
    "SK": "SK2022749619",
    # Associated countries (the module countries.json names for each)
    "AL": "J91402501L",
    "CH": "CHE-107.787.577 MWST",
    "FO": "623857",
    "GB": "GB980780684",
    "IL": "516179157",
    "IS": "00621",
    "MD": "1008600038413",
    "ME": "02655284",
    "MK": "4030000375897",
    "NO": "NO 995 525 828 MVA",
    "RS": "101134702",
    "TN": "1234567/M/A/E/001",
    "TR": "4540536920",
    "UA": "32855961",
}
#: Territories whose businesses have the numbers of another country: France's
#: outermost regions (FR prefix) and Åland (Finnish business ids).
_SAME_AS = {"RE": "FR", "GF": "FR", "GP": "FR", "MQ": "FR", "YT": "FR", "MF": "FR"}
_SAME_AS["AX"] = "FI"


def vat_example(country: str | None) -> str:
    """The example for an organisation incorporated in ``country`` (ISO 3166 code),
    or "" when the country is not chosen or its numbers are not checked."""
    code = (country or "").upper()
    return VAT_EXAMPLES.get(_SAME_AS.get(code, code), "")
