"""Narrative against figures: an efficiency, speedup, throughput, GPU count,
GPU-hour or duration figure written in the scalability narrative that the tables
contradict.

Applicants write their narrative first and fill the tables later (or the other way
round), so "80-85 % efficiency at 32 GPUs" can stay in the text after the scaling
table projects 76-82 %. Many write it in German, French, Italian or Spanish before
translating, so the claims are read in those languages too, in any common word
order: "92 % at 64 GPUs", "At 64 GPUs we reach 92 %", "Bei 64 GPUs erreichen wir
92 %", "Sur 64 GPU, l'efficacité est de 92 %", a speedup over a range of counts
("from 8 to 64 GPUs ... 7.5x", "von 8 auf 64 GPUs ... 7,5-fach").

How a sentence is read: every figure in it is found first (percentages, speedups,
throughputs with a unit, GPU counts, ranges of GPU counts, GPU-hours, months), then
each claim is paired with the GPU count it is about, and only when that pairing is
unambiguous:

- tightly, when only linking words stand between them ("92 % at 64 GPUs",
  "92 % Effizienz bei 64 GPUs"), or when a count introduced by a preposition heads
  the clause and the claim is the next figure ("At 64 GPUs we reach 92 %");
- otherwise only when the sentence has exactly one claim and one GPU count (or one
  range of counts) left.

A claim that two counts could own, or a sentence with several claims and counts in
no clear order, is left alone. Each figure is then compared only with a figure the
tables compute for the same thing; what counts as agreeing: a range that overlaps
the computed range (80-85 % against a projected 76-82 %), a bound that holds ("over
70 %" when 76 % is reached), a number that reads right in either of its readings
("1,200" is 1200 in English and 1.2 in German), a GPU-hour figure that is a part of
the total ("Of the total, 12,288 GPU-hours are for ablations", or the hours of one
job type or one schedule period), and any figure in a sentence about another or an
earlier allocation ("our previous Playground allocation of 2,000 GPU-hours").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .i18n import gettext
from .jobplan import JobPlan
from .numbers import grouped as figure
from .numbers import points as percent_points
from .scaling import Projection, ScalingAnalysis
from .units import UNIT_TEXT, read_unit

# Rounding slack: a stated efficiency may be rounded to whole points, a speedup to
# one decimal, a throughput to two figures ("4.2k"), GPU-hours to the nearest few.
EFFICIENCY_POINTS = 2.0
SPEEDUP_RELATIVE = 0.05
THROUGHPUT_RELATIVE = 0.05
HOURS_RELATIVE = 0.01

# ------------------------------------------------------------------ vocabulary
# Every word list names English, German, French, Italian and Spanish, in that
# order. Stems end without ``\b`` where the languages inflect.

_EFFICIENCY_WORD = re.compile(r"efficien|effizienz|efficacit|eficien", re.IGNORECASE)
_SPEED_WORD = re.compile(
    r"speed-?ups?|faster|beschleunigung|schneller|accélération|plus rapide|"
    r"accelerazione|più veloce|aceleración|más rápido",
    re.IGNORECASE,
)
# Words before a percentage that make it something other than an efficiency.
_OTHER_BEFORE = re.compile(
    r"MFU|utili[sz]|auslastung|overhead|communicat|kommunikation|comunica|loading|"
    r"laden|chargement|caricamento|carga|memory|speicher|mémoire|memoria|idle|"
    r"leerlauf|share|anteil|quota|cuota|surcoût|sobrecarga|accuracy|genauigkeit|"
    r"précision|precisione|precisión",
    re.IGNORECASE,
)
# Words right after a percentage that make it something else: "38 % MFU", "45 % of
# the step", "30 % der Zeit", "30 % du temps", "30 % del tempo", "30 % del tiempo".
_OTHER_AFTER = re.compile(
    r"\s{0,3}(?:(?:of|der|des|du|de|di|del|della|dello|de la|de l')\s{0,3}"
    r"(?:the\s{1,3})?)?(?:MFU|model flops|utili[sz]|auslastung|overhead|communicat|"
    r"kommunikation|comunica|surcoût|sobrecarga|step|time|zeit|temps|tempo|tiempo|"
    r"budget|presupuesto|allocation|hours|stunden|heures|ore\b|horas|schritt|étape|"
    r"passo|paso|l'étape|memory|speicher|mémoire|memoria)",
    re.IGNORECASE,
)
# Linking words that may stand between a claim and the count it is about ("92 %
# [parallel efficiency] at 64 GPUs"), lower case.
_LINK_WORDS = frozenset(
    [
        "at",
        "on",
        "with",
        "using",
        "across",
        "for",
        "up",
        "to",
        "the",
        "of",
        "in",
        "per",
        "a",
        "an",
        "parallel",
        "scaling",
        "strong",
        "weak",
        "is",
        "was",
        "are",
        "be",
        "reach",
        "reached",
        "reaches",
        "reaching",
        "achieved",
        "achieves",
        "bei",
        "mit",
        "auf",
        "für",
        "von",
        "unter",
        "den",
        "die",
        "der",
        "dem",
        "im",
        "zu",
        "bis",
        "parallele",
        "paralleler",
        "skalierungs",
        "skalierung",
        "erreicht",
        "erreichen",
        "sur",
        "avec",
        "à",
        "pour",
        "de",
        "d",
        "des",
        "du",
        "le",
        "la",
        "les",
        "l",
        "en",
        "jusqu",
        "parallèle",
        "mise",
        "échelle",
        "atteint",
        "atteignons",
        "su",
        "con",
        "per",
        "a",
        "di",
        "da",
        "fino",
        "del",
        "della",
        "dello",
        "sui",
        "su",
        "alle",
        "parallela",
        "scalabilità",
        "raggiunge",
        "raggiungiamo",
        "con",
        "en",
        "sobre",
        "para",
        "de",
        "el",
        "los",
        "las",
        "hasta",
        "usando",
        "utilizando",
        "paralela",
        "escalado",
        "alcanza",
        "alcanzamos",
    ]
)
# Prepositions that make a count the head of its clause ("At 64 GPUs, ...").
_HEAD_PREPOSITIONS = frozenset(
    [
        "at",
        "on",
        "with",
        "using",
        "across",
        "for",
        "bei",
        "mit",
        "auf",
        "unter",
        "für",
        "sur",
        "avec",
        "à",
        "pour",
        "en",
        "su",
        "con",
        "a",
        "per",
        "con",
        "en",
        "sobre",
        "para",
        "usando",
        "utilizando",
    ]
)
# Words that make the GPU count after a speedup its baseline ("3.5x over 4 GPUs",
# "7,5-fach gegenüber 8 GPUs", "par rapport à 8 GPU", "rispetto a 8 GPU",
# "respecto a 8 GPU").
_BASELINE = re.compile(
    r"(?:\bover|relative to|compared (?:to|with)|\bvs\.?|versus|\bthan|against|"
    r"gegenüber|im vergleich zu|verglichen mit|\bals|par rapport (?:à|aux?)|"
    r"comparée? (?:à|aux?)|rispetto (?:a|ai|agli)|confrontat[oa] con|"
    r"respecto (?:a|de)|frente a|comparado con|en comparación con)"
    r"\s{1,3}(?:(?:the|den|die|le|la|les|il|i|el|los|las)\s{1,3})?$",
    re.IGNORECASE,
)
_JOB_WORD = re.compile(
    r"\bjobs?\b|\bruns?\b|\bläufe?\b|\blauf\b|\btâches?\b|\btravaux\b|"
    r"\bexécutions?\b|\blavor[oi]\b|\besecuzion[ei]\b|\btrabajos?\b|\btareas?\b|"
    r"\bejecucion",
    re.IGNORECASE,
)
_TEST_WORD = re.compile(
    r"\btest|measur|benchmark|\bscaled\b|gemessen|messung|mesur|misur|\bprova|"
    r"prueba|medid|medimos|medición|essai",
    re.IGNORECASE,
)
_HOURS_CONTEXT = re.compile(
    r"\b(?:total|in all|overall|request|requesting|requested|ask|asking|apply|"
    r"applying|allocation|budget|insgesamt|gesamt|beantrag|antrag|zuteilung|"
    r"demand|sollicit|totale|complessiv|richied|richiest|assegnazione|"
    r"solicit|pedimos|asignación|presupuesto)",
    re.IGNORECASE,
)
# A GPU-hour figure that is a part of the total, not the total.
_PART_OF = re.compile(
    r"\bof (?:the|this|that|our|these|those) (?:total|request|allocation|budget|"
    r"hours|GPU[- ]?hours)\b|\bof which\b|\bof these\b|\bof them\b|\bincluding\b|"
    r"\b(?:is|are|go|goes|will go|will be) (?:used |spent |reserved |set aside )?"
    r"(?:for|to|on)\b|\breserved\b|\bset aside\b|\bdedicated\b|\bper (?:run|job)\b|"
    r"\beach\b|"
    r"\bdavon\b|\bvon denen\b|\bdarunter\b|\bentfallen\b|\bsind für\b|"
    r"\bgehen an\b|\breserviert|\bpro (?:lauf|job)\b|\bje (?:lauf|job)\b|\bjeweils\b|"
    r"\bdont\b|\bparmi\b|\bsont (?:pour|destinées|réservées)\b|\bréservé|"
    r"\bpar (?:tâche|job|exécution)\b|\bchacun|"
    r"\bdi cui\b|\bsono per\b|\briservat|\bper (?:job|lavoro|esecuzione)\b|"
    r"\bciascun|\bogni\b|"
    r"\bde (?:los|las) cuales\b|\bson para\b|\breservad|\bpor (?:trabajo|job)\b|"
    r"\bcada\b",
    re.IGNORECASE,
)
# A sentence about another or an earlier allocation.
_OTHER_ALLOCATION = re.compile(
    r"\b(?:previous(?:ly)?|prior|earlier|past|former|last|another|other|preceding|"
    r"ongoing|existing|current(?:ly)?|was granted|were granted|granted us|received|"
    r"consumed|already used|have used|had used|used up)\b|"
    r"\b(?:vorherig|früher|letzte|vergangen|andere|bisherig|laufend|bestehend|"
    r"erhielten|erhalten|verbraucht|bewilligt|"
    r"précédent|antérieur|derni|passé|autre|en cours|existant|obtenu|reçu|consommé|"
    r"precedent|scors|passat|altr[oaie]\b|in corso|esistent|ottenut|ricevut|"
    r"consumat|"
    r"anterior|pasad|previ[oa]|otr[oa]s?\b|en curso|existente|obtuvimos|recibi|"
    r"consumi|concedid)",
    re.IGNORECASE,
)
# A sentence about earlier work or another system: its efficiencies and speedups
# are not the tables' (which are this proposal's measurements).
_ELSEWHERE = re.compile(
    r"\b(?:previous(?:ly)?|prior|earlier|past|former|last year|"
    r"(?:another|other|a different) (?:system|cluster|machine|allocation|project|"
    r"model|code))\b|"
    r"\b(?:vorherig|früher|letzten jahr|(?:anderen?|einem anderen) (?:system|"
    r"cluster|rechner|projekt|modell)|"
    r"précédent|antérieur|l'an dernier|l'année dernière|autre (?:système|cluster|"
    r"machine|projet|modèle)|"
    r"precedent|l'anno scorso|altr[oa] (?:sistema|cluster|macchina|progetto|"
    r"modello)|"
    r"anterior|previ[oa]|el año pasado|otr[oa] (?:sistema|clúster|cluster|máquina|"
    r"proyecto|modelo))",
    re.IGNORECASE,
)
_DURATION_CONTEXT = re.compile(
    r"\b(?:allocation|duration|project|period|laufzeit|dauer|zuteilung|projekt|"
    r"zeitraum|durée|projet|période|durata|allocazione|assegnazione|progetto|"
    r"periodo|duración|asignación|proyecto|período)",
    re.IGNORECASE,
)
# A months figure that is one phase or a bound, not the allocation's duration.
_DURATION_NOT = re.compile(
    r"\b(?:first|then|after|phase|each|per|every|month \d|more than|less than|"
    r"at most|at least|up to|within|under|over the first|"
    r"erste|dann|danach|phase|jede|mehr als|weniger als|bis zu|innerhalb|höchstens|"
    r"mindestens|"
    r"premi|puis|ensuite|chaque|plus de|moins de|jusqu|au plus|au moins|"
    r"prim[oi]|poi|ogni|fase|più di|meno di|fino a|entro|al massimo|almeno|"
    r"primer|luego|después|cada|más de|menos de|hasta|como máximo|al menos|"
    r"dentro de)",
    re.IGNORECASE,
)
# A bound before a figure: "over 70 %" says at least 70, "below 3x" at most 3.
_LOWER_BOUND = re.compile(
    r"(?:over|above|more than|greater than|at least|exceed(?:s|ing)?|beyond|"
    r"upwards of|no less than|über|mehr als|mindestens|oberhalb von|plus de|"
    r"au moins|supérieure? à|au-delà de|più di|almeno|oltre|superiore a|"
    r"más de|al menos|por encima de|superior a|>|≥|>=)\s{0,3}$",
    re.IGNORECASE,
)
_UPPER_BOUND = re.compile(
    r"(?:under|below|less than|at most|up to|no more than|within|unter|"
    r"weniger als|höchstens|bis zu|unterhalb von|moins de|au plus|jusqu'à|"
    r"inférieure? à|meno di|al massimo|fino a|inferiore a|menos de|como máximo|"
    r"hasta|inferior a|<|≤|<=)\s{0,3}$",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s++(?=[A-ZÀ-ÖØ-Þ(\"“¿¡«])|\n+")

# ------------------------------------------------------------------ figures
# Numbers: grouped thousands ("18,176", "18.176", "18 176") or a plain number with
# decimals ("7.5", "7,5"). Every repetition is bounded, so a search costs the same
# per character whatever a line holds.
_NUM = (
    r"(?<![\d.,])(?:\d{1,3}(?:[,.\u00a0\u202f ]\d{3}){1,4}(?:[.,]\d{1,3})?"
    r"|\d{1,7}(?:[.,]\d{1,3})?)(?!\d)"
)
_INT = r"(?<![\d.,])(?:\d{1,3}(?:[,.\u00a0\u202f ]\d{3}){1,3}|\d{1,6})(?![\d]|[.,]\d)"
_PCT_WORD = (
    r"(?:%|\s?(?:percent|per\s?cent|prozent|pour\s?cent|per\s?cento|"
    r"por\s?ciento)\b)"
)
_PCT = re.compile(
    rf"(?:(?:between|zwischen|entre|tra|fra)\s{{1,3}}(?P<blo>{_NUM})\s{{0,2}}%?"
    rf"\s{{0,2}}(?:and|und|et|e|y)\s{{1,3}}(?P<bhi>{_NUM})"
    rf"|(?P<lo>{_NUM})\s{{0,2}}%?\s{{0,2}}(?:-|–|—|to\b|bis\b|à\b|au\b|a\b|al\b)"
    rf"\s{{0,3}}(?P<hi>{_NUM})"
    rf"|(?P<one>{_NUM}))\s{{0,2}}{_PCT_WORD}",
    re.IGNORECASE,
)
_SPEEDUP = re.compile(
    rf"(?P<value>{_NUM})\s{{0,2}}(?:x|×|-?fold|-?fach|-?mal|times|fois|volte|veces)"
    rf"(?![^\W\d_])"
    rf"|(?:factor|faktor|facteur|fattore)(?:\s{{1,3}}(?:of|von|de|di))?"
    rf"\s{{1,3}}(?P<fvalue>{_NUM})",
    re.IGNORECASE,
)
_GPU_NOUN = (
    r"(?:GPUs?|GCDs?|A100s?|H100s?|H200s?|B200s?|GH200s?|MI250Xs?|MI300Xs?|"
    r"accelerators?|beschleunigern?|accélérateurs?|acceleratori|aceleradores)"
)
_NOT_HOURS = r"(?![-\s]{0,2}(?:hours?|h\b|stunden|std\b|heures?|ore\b|horas?))"
_COUNT = re.compile(
    rf"(?P<n>{_INT})\s{{0,2}}(?:(?:NVIDIA|AMD)\s{{1,2}})?(?P<word>{_GPU_NOUN})\b"
    rf"{_NOT_HOURS}",
    re.IGNORECASE,
)
# A bare count after "at" (English, as in "88 % at 16.").
_BARE = re.compile(
    r"\b(?:at|on|with|using|across)\s{1,3}(?P<n>\d{1,6})(?=\s{0,2}(?:[.,;:)]|$))"
    r"(?![.,]\d)",
    re.IGNORECASE,
)
_RANGE = re.compile(
    rf"\b(?:from|von|de|des|da|dal|desde|between|zwischen|entre|tra|fra)\s{{1,3}}"
    rf"(?P<base>{_INT})\s{{0,2}}(?:{_GPU_NOUN}\s{{1,3}})?"
    rf"(?:to|auf|bis|à|a|au|al|hasta|and|und|et|e|y)\s{{1,3}}"
    rf"(?P<to>{_INT})\s{{0,2}}(?P<word>{_GPU_NOUN})\b{_NOT_HOURS}",
    re.IGNORECASE,
)
_THROUGHPUT = re.compile(
    rf"(?P<n>{_NUM})\s{{0,2}}(?P<k>k|K|M|Mio\.?|million|millions|millionen|milioni|"
    rf"millones)?\s{{0,2}}(?P<unit>{UNIT_TEXT.pattern})",
    re.IGNORECASE,
)
_HOURS = re.compile(
    rf"(?P<n>{_NUM})\s{{0,2}}(?P<k>k|K|thousand|Tsd\.?|mille|mila|mil)?\s{{0,2}}"
    r"(?:GPU[- ]?(?:hours?|h\b|stunden)|heures?[- ](?:de[- ])?GPU|ore[- ]GPU|"
    r"horas?[- ](?:de[- ])?GPU)",
    re.IGNORECASE,
)
_MONTHS = re.compile(
    r"(?<![\d.,])(?P<n>\d{1,2})\s{0,2}-?\s{0,2}(?:months?|monaten?|monats?|"
    r"monatig\w{0,3}|mois|mesi|mese|meses|mes)\b",
    re.IGNORECASE,
)
_MAX_GPUS = re.compile(
    rf"(?:up to|at most|maximum(?: of)?|max\.?(?: of)?|no more than|largest job"
    rf"(?: uses| of| on| runs on)?|bis zu|höchstens|maximal|jusqu'à|au plus|"
    rf"au maximum|pas plus de|fino a|al massimo|non più di|hasta|como máximo|"
    rf"no más de)\s{{1,3}}(?P<n>{_INT})\s{{0,2}}(?P<word>GPUs?|GCDs?)\b{_NOT_HOURS}",
    re.IGNORECASE,
)
_PER_JOB = re.compile(
    rf"(?P<n>{_INT})\s{{0,2}}(?P<word>GPUs?|GCDs?)\s{{1,3}}(?:per|each|a|pro|je|"
    rf"par|por|para|ogni)\s{{1,3}}(?:job|run|lauf|tâche|travail|exécution|lavoro|"
    rf"esecuzione|trabajo|tarea|ejecución)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Contradiction:
    """A figure of the narrative (``quote``, what it ``claims``) and what the tables
    compute for the same thing."""

    kind: str  # efficiency, speedup, throughput, gpus, gpu_hours, duration
    quote: str
    claimed: str
    computed: str


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a decimal point does not end one)."""
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]


def readings(text: str) -> tuple[float, ...]:
    """Every value a written number can mean: "18,176" is 18176; "1,200" is 1200
    in English and 1.2 in German; "7,5" is 7.5; "18 176" is 18176."""
    text = text.replace("\u00a0", " ").replace("\u202f", " ")
    if " " in text:
        whole, _, rest = text.partition(" ")
        text = text.replace(" ", "")
        head = re.fullmatch(r"(\d+)(?:[.,](\d+))?", text)
        return (float(f"{head[1]}.{head[2]}" if head[2] else head[1]),) if head else ()
    seps = [c for c in text if c in ".,"]
    if not seps:
        return (float(text),)
    if len(seps) == 1:
        whole, frac = re.split(r"[.,]", text)
        decimal = float(f"{whole}.{frac}")
        if len(frac) == 3:
            return (float(whole + frac), decimal)
        return (decimal,)
    group, last = seps[0], seps[-1]
    if all(c == group for c in seps):
        return (float(text.replace(group, "")),)
    # "1,200.5" or "1.200,5": the last separator is the decimal one.
    whole, _, frac = text.rpartition(last)
    return (float(whole.replace(group, "") + "." + frac),)


# ------------------------------------------------------------------ items


@dataclass
class _Item:
    kind: str  # pct, other_pct, speedup, throughput, count, range
    start: int
    end: int
    text: str
    lo: tuple[float, ...] = ()
    hi: tuple[float, ...] = ()
    gpus: int | None = None
    base: int | None = None
    unit: str = ""
    per_gpu: bool = False
    baseline: bool = False
    paired: list = field(default_factory=list)

    @property
    def claim(self) -> bool:
        return self.kind in ("pct", "speedup", "throughput")

    @property
    def counts(self) -> bool:
        return self.kind in ("count", "range")


def _gpus(raw: str, word: str, gcds_per_gpu: int) -> int | None:
    values = [v for v in readings(raw) if v == int(v)]
    if not values:
        return None
    count = int(max(values))
    if word.lower().startswith("gcd"):
        if gcds_per_gpu < 2 or count % gcds_per_gpu:
            return None
        count //= gcds_per_gpu
    return count or None


def _overlaps(a: _Item, items: list[_Item]) -> bool:
    return any(a.start < b.end and b.start < a.end for b in items)


def _items(sentence: str, gcds_per_gpu: int) -> list[_Item]:
    """Every figure of ``sentence``, in text order (a figure inside another, such
    as the "64 GPUs" of "from 8 to 64 GPUs", only once)."""
    found: list[_Item] = []

    def add(item: _Item) -> None:
        if not _overlaps(item, found):
            found.append(item)

    for m in _RANGE.finditer(sentence):
        base = _gpus(m["base"], m["word"], gcds_per_gpu)
        to = _gpus(m["to"], m["word"], gcds_per_gpu)
        if base and to and base < to:
            add(_Item("range", m.start(), m.end(), m[0], gpus=to, base=base))
    for m in _HOURS.finditer(sentence):
        add(_Item("hours", m.start(), m.end(), m[0]))
    for m in _THROUGHPUT.finditer(sentence):
        unit = read_unit(m["unit"])
        if not unit.canonical:
            continue
        factor = {"k": 1e3, "m": 1e6, "mio": 1e6, "mio.": 1e6}.get(
            (m["k"] or "").lower(), 1e6 if m["k"] else 1.0
        )
        values = tuple(v * factor for v in readings(m["n"]))
        add(
            _Item(
                "throughput",
                m.start(),
                m.end(),
                m[0],
                lo=values,
                unit=unit.canonical,
                per_gpu=unit.per_gpu,
            )
        )
    for m in _PCT.finditer(sentence):
        lo = m["blo"] or m["lo"] or m["one"]
        hi = m["bhi"] or m["hi"] or m["one"]
        kind = "pct"
        after = sentence[m.end() : m.end() + 40]
        clause = re.split(r"[,;:(]", sentence[max(0, m.start() - 60) : m.start()])[-1]
        if _OTHER_AFTER.match(after) or (
            _OTHER_BEFORE.search(clause) and not _EFFICIENCY_WORD.search(clause)
        ):
            kind = "other_pct"
        add(_Item(kind, m.start(), m.end(), m[0], lo=readings(lo), hi=readings(hi)))
    for m in _SPEEDUP.finditer(sentence):
        value = readings(m["value"] or m["fvalue"])
        add(_Item("speedup", m.start(), m.end(), m[0], lo=value, hi=value))
    for m in _COUNT.finditer(sentence):
        gpus = _gpus(m["n"], m["word"], gcds_per_gpu)
        item = _Item("count", m.start(), m.end(), m[0], gpus=gpus)
        item.baseline = bool(
            _BASELINE.search(sentence[max(0, m.start() - 30) : m.start()])
        )
        if gpus:
            add(item)
    for m in _BARE.finditer(sentence):
        start = m.start("n")
        item = _Item("count", start, m.end(), m["n"], gpus=int(m["n"]) or None)
        if item.gpus:
            add(item)
    return sorted(found, key=lambda item: item.start)


def _gap_links(gap: str) -> bool:
    """Only linking words (and efficiency or speed words) between two figures."""
    if len(gap) > 40 or re.search(r"\d|%", gap):
        return False
    return all(
        word in _LINK_WORDS or _EFFICIENCY_WORD.search(word) or _SPEED_WORD.search(word)
        for word in _WORD.findall(gap.lower())
    )


def _head_of_clause(sentence: str, count: _Item) -> bool:
    """The count is introduced by a preposition ("At 64 GPUs", "Bei 64 GPUs")."""
    if count.kind == "range":
        return True
    words = _WORD.findall(sentence[max(0, count.start - 20) : count.start].lower())
    return bool(words) and words[-1] in _HEAD_PREPOSITIONS


def _pair(sentence: str, items: list[_Item]) -> list[tuple[_Item, _Item]]:
    """(claim, count) pairs the sentence states unambiguously."""
    counts = [i for i in items if i.counts and not i.baseline]
    # Written claim first ("92 % at 64 GPUs"): only linking words between.
    owned: set[int] = set()
    for claim, nxt in zip(items, items[1:], strict=False):
        if (
            claim.claim
            and nxt.counts
            and not nxt.baseline
            and _gap_links(sentence[claim.end : nxt.start])
        ):
            claim.paired.append(nxt)
            owned.add(id(nxt))
    # Written count first ("At 64 GPUs we reach 92 %"): a count that heads its
    # clause and is not already the count of the claim before it.
    for prev, claim in zip(items, items[1:], strict=False):
        if (
            claim.claim
            and prev.counts
            and not prev.baseline
            and id(prev) not in owned
            and len(sentence[prev.end : claim.start]) <= 80
            and _head_of_clause(sentence, prev)
        ):
            claim.paired.append(prev)
    pairs = []
    used: set[int] = set()
    for item in items:
        if not item.claim or not item.paired:
            continue
        owners = {id(c) for c in item.paired}
        targets = {(c.gpus, c.base) for c in item.paired}
        if len(targets) == 1:
            pairs.append((item, item.paired[0]))
            used |= owners
        else:
            used |= {id(item)} | owners  # two counts could own it: left alone
    free_claims = [i for i in items if i.claim and not i.paired and id(i) not in used]
    free_counts = [c for c in counts if id(c) not in used]
    claimed = [i for i in items if i.kind in ("pct", "speedup", "throughput")]
    if len(free_claims) == 1 and len(free_counts) == 1 and len(claimed) >= 1:
        pairs.append((free_claims[0], free_counts[0]))
    return pairs


# ------------------------------------------------------------------ judging


def _bound(sentence: str, item: _Item) -> tuple[int, str]:
    """(where the quote starts, "lower" / "upper" / "") for a single figure written
    as a bound ("over 70 %", "below 3x", "über 70 %", "plus de 70 %")."""
    if len(item.lo) != len(item.hi) or item.lo != item.hi:
        return item.start, ""
    before = sentence[max(0, item.start - 30) : item.start]
    offset = item.start - len(before)
    for kind, pattern in (("lower", _LOWER_BOUND), ("upper", _UPPER_BOUND)):
        found = pattern.search(before)
        if found:
            return offset + found.start(), kind
    return item.start, ""


def _measured(analysis: ScalingAnalysis, gpus: int, base: int | None):
    """(speedup, efficiency, throughput, unit) of every series that measured
    ``gpus`` (and ``base``, when given; else its own smallest count)."""
    out = []
    for series in analysis.series:
        if len(series.units) > 1 or not series.points:
            continue
        start = base if base is not None else series.points[0].gpus
        at = [p for p in series.points if p.gpus == gpus]
        ref = [p for p in series.points if p.gpus == start]
        for p in at:
            for r in ref or [None]:
                if r is None:
                    out.append((None, None, p.throughput, p.unit))
                    continue
                speedup = p.throughput / r.throughput
                out.append((speedup, speedup / (gpus / start), p.throughput, p.unit))
    return out


def _range_holds(lo, hi, bound, low, high, slack) -> bool:
    """A claim [lo, hi] (or a bound) agrees with a computed [low, high]."""
    if bound == "lower":
        hi = float("inf")
    elif bound == "upper":
        lo = 0.0
    return not (hi < low - slack or lo > high + slack)


def _judge(
    sentence, claim: _Item, count: _Item, *, named, baselines, analysis, projection
):
    """The contradiction of one (claim, count) pair, or ``None``: the claim agrees,
    or nothing was computed for that count (and baseline)."""
    gpus, base = count.gpus, count.base
    if claim.kind == "speedup" and base is None:
        if len(baselines) == 1:
            base = baselines[0].gpus
        elif baselines:
            return None
    start, bound = _bound(sentence, claim)
    # The claim as written and the count it is about, in one phrase.
    claimed = sentence[start : claim.end].strip()
    if count.kind == "range":
        quote = gettext("{claim} from {base} to {gpus} GPUs").format(
            claim=claimed, base=base, gpus=gpus
        )
    else:
        quote = gettext("{claim} at {gpus} GPUs").format(claim=claimed, gpus=gpus)
    measured = _measured(analysis, gpus, base)
    if claim.kind == "throughput":
        return _judge_throughput(claim, gpus, measured, quote)
    if claim.kind == "pct" and not named:
        return None
    values = [
        (e * 100 if claim.kind == "pct" else s)
        for s, e, _, _ in measured
        if s is not None
    ]
    is_eff = claim.kind == "pct"
    if measured and not values:
        return None  # measured at the count, not at the baseline: no judgement
    if values:
        for lo in claim.lo:
            for hi in claim.hi:
                if lo > hi:
                    continue
                for v in values:
                    slack = EFFICIENCY_POINTS if is_eff else SPEEDUP_RELATIVE * v
                    if _range_holds(lo, hi, bound, v, v, slack):
                        return None
        if is_eff and not all(0 < lo <= 100 for lo in claim.lo):
            return None
        if is_eff:
            shown = " / ".join(percent_points(v, 0) for v in sorted(values))
        else:
            shown = " / ".join(f"{figure(v, 2, trim=False)}x" for v in sorted(values))
        if (
            base is not None
            and count.kind == "range"
            or (base is not None and claim.kind == "speedup")
        ):
            computed = gettext("{shown} measured from {base} to {gpus} GPUs").format(
                shown=shown, base=base, gpus=gpus
            )
        else:
            computed = gettext("{shown} measured at {gpus} GPUs").format(
                shown=shown, gpus=gpus
            )
        return Contradiction(
            claim.kind if not is_eff else "efficiency", quote, quote, computed
        )
    if projection is None or projection.target_gpus != gpus:
        return None
    if base is not None and base != projection.base_gpus:
        return None
    if is_eff:
        low, high = projection.efficiency_low * 100, projection.efficiency_high * 100
        slack = EFFICIENCY_POINTS
    else:
        ratio = gpus / projection.base_gpus
        low = projection.efficiency_low * ratio
        high = projection.efficiency_high * ratio
        slack = SPEEDUP_RELATIVE * high
    for lo in claim.lo:
        for hi in claim.hi:
            if lo <= hi and _range_holds(lo, hi, bound, low, high, slack):
                return None
    if is_eff:
        if not any(0 < lo <= 100 for lo in claim.lo):
            return None
        computed = gettext("{low}-{high} projected at {gpus} GPUs").format(
            low=percent_points(round(low), 0),
            high=percent_points(round(high), 0),
            gpus=gpus,
        )
        return Contradiction("efficiency", quote, quote, computed)
    computed = gettext("{low}-{high}x projected at {gpus} GPUs (from {base})").format(
        low=figure(low, 1, trim=False),
        high=figure(high, 1, trim=False),
        gpus=gpus,
        base=projection.base_gpus,
    )
    return Contradiction("speedup", quote, quote, computed)


def _judge_throughput(claim: _Item, gpus: int, measured, quote):
    """A throughput at a count against the measurement at that count, in the same
    canonical unit; a figure per GPU may be compared with the total over the GPUs,
    and a total with one GPU's times the GPUs, when the two units differ in that."""
    candidates = []
    for _, _, throughput, unit in measured:
        reading = read_unit(unit)
        if reading.canonical != claim.unit:
            continue
        candidates.append(throughput)
        if reading.per_gpu != claim.per_gpu:
            candidates += [throughput / gpus, throughput * gpus]
    if not candidates:
        return None
    if any(abs(v - c) <= THROUGHPUT_RELATIVE * c for v in claim.lo for c in candidates):
        return None
    shown = " / ".join(
        f"{figure(t, 0)} {u}"
        for _, _, t, u in measured
        if read_unit(u).canonical == claim.unit
    )
    return Contradiction(
        "throughput",
        quote,
        quote,
        gettext("{shown} measured at {gpus} GPUs").format(shown=shown, gpus=gpus),
    )


def _claims(sentence, previous, analysis, projection, gcds_per_gpu):
    """Efficiency, speedup and throughput claims of ``sentence`` that the tables
    contradict (an efficiency needs an efficiency word in the sentence, or in the
    one before it when the claim is written straight before its count)."""
    items = _items(sentence, gcds_per_gpu)
    named = bool(_EFFICIENCY_WORD.search(sentence))
    named_before = bool(_EFFICIENCY_WORD.search(previous))
    speed = bool(_SPEED_WORD.search(sentence)) or "×" in sentence
    baselines = [i for i in items if i.counts and i.baseline]
    for claim, count in _pair(sentence, items):
        if claim.kind == "speedup" and not speed:
            continue
        tight = count.start > claim.end and _gap_links(
            sentence[claim.end : count.start]
        )
        found = _judge(
            sentence,
            claim,
            count,
            named=named or (named_before and tight),
            baselines=baselines,
            analysis=analysis,
            projection=projection,
        )
        if found:
            yield found


def _gpu_counts(sentence, target_gpus, gcds_per_gpu):
    """ "Up to 64 GPUs" per job (in a sentence about jobs, not tests) must be the
    declared maximum; "128 GPUs per job" must not exceed it."""
    if not target_gpus:
        return
    about_jobs = _JOB_WORD.search(sentence) and not _TEST_WORD.search(sentence)
    for pattern, exact in ((_MAX_GPUS, True), (_PER_JOB, False)):
        if exact and not about_jobs:
            continue
        for match in pattern.finditer(sentence):
            count = _gpus(match.group("n"), match.group("word"), gcds_per_gpu)
            if count is None:
                continue
            if count != target_gpus if exact else count > target_gpus:
                yield Contradiction(
                    "gpus",
                    match.group(0).strip(),
                    f"{count} GPUs per job",
                    gettext(
                        "{gpus} GPUs per job at most (AI Factory selection)"
                    ).format(gpus=target_gpus),
                )


def _hours_values(match: re.Match) -> tuple[float, ...]:
    factor = 1000 if match.group("k") else 1
    return tuple(v * factor for v in readings(match.group("n")))


def _gpu_hours(sentence, requested, plan, parts=()):
    """A GPU-hour figure written as the total must be the requested total (or the
    job plan's). Parts of the total and other allocations are left alone."""
    if not _HOURS_CONTEXT.search(sentence):
        return
    if _PART_OF.search(sentence) or _OTHER_ALLOCATION.search(sentence):
        return
    known = [v for v in (requested, plan.total_gpu_hours if plan.rows else None) if v]
    if not known:
        return
    parts = [row.gpu_hours for row in plan.rows] + list(parts)
    for match in _HOURS.finditer(sentence):
        values = [v for v in _hours_values(match) if v]
        if not values or any(abs(v - p) <= 0.5 for v in values for p in parts):
            continue
        if all(
            abs(v - k) > max(0.5, HOURS_RELATIVE * k) for v in values for k in known
        ):
            computed = (
                gettext("{hours} GPU-hours requested").format(
                    hours=figure(requested, 0)
                )
                if requested
                else ""
            )
            if plan.rows:
                computed += ("; " if computed else "") + gettext(
                    "{hours} in the job plan"
                ).format(hours=figure(plan.total_gpu_hours, 0))
            yield Contradiction(
                "gpu_hours",
                match.group(0).strip(),
                f"{figure(values[0], 0)} GPU-hours",
                computed,
            )


def _duration(sentence, months) -> Iterator[Contradiction]:
    """ "A 6-month allocation", "Laufzeit von 12 Monaten", "une durée de 6 mois":
    the allocation's duration must be the declared one. Phases, bounds and other
    allocations are left alone; so is a sentence with two month figures."""
    if not months or not _DURATION_CONTEXT.search(sentence):
        return
    if _DURATION_NOT.search(sentence) or _OTHER_ALLOCATION.search(sentence):
        return
    found = list(_MONTHS.finditer(sentence))
    if len(found) != 1:
        return
    (match,) = found
    value = int(match["n"])
    if value and value != months:
        yield Contradiction(
            "duration",
            match.group(0).strip(),
            match.group(0).strip(),
            gettext("a duration of {months} months (AI Factory selection)").format(
                months=months
            ),
        )


def contradictions(
    narrative: str,
    *,
    analysis: ScalingAnalysis,
    projection: Projection | None,
    plan: JobPlan,
    requested_gpu_hours: float | None,
    target_gpus: int | None,
    gcds_per_gpu: int = 1,
    schedule_hours: tuple[float, ...] = (),
    duration_months: int | None = None,
) -> list[Contradiction]:
    """Every figure of ``narrative`` that the computed figures contradict, in text
    order, each once (``schedule_hours``: the usage schedule's periods, parts of
    the total a text may name)."""
    found: list[Contradiction] = []
    previous = ""
    for sentence in sentences(narrative):
        measured: list[Contradiction] = []
        if not _ELSEWHERE.search(sentence):
            measured += _claims(sentence, previous, analysis, projection, gcds_per_gpu)
            # "Our previous allocation ran 64 GPUs per job" is not this request's.
            measured += _gpu_counts(sentence, target_gpus, gcds_per_gpu)
        for item in (
            *measured,
            *_gpu_hours(sentence, requested_gpu_hours, plan, schedule_hours),
            *_duration(sentence, duration_months),
        ):
            if item not in found:
                found.append(item)
        previous = sentence
    return found
