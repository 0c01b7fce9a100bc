"""The words and number shapes the narrative check (PLAN-4,
:mod:`.narrative_figures`) reads, in English, German, French, Italian and Spanish.

Every word list names the five languages in that order; stems end without ``\\b``
where the languages inflect. Every repetition in the patterns is bounded, so a
search costs the same per character whatever a text holds
(``tests/domain/test_narrative_linear.py`` checks each pattern on its own worst
lines).
"""

from __future__ import annotations

import re

from .units import UNIT_TEXT

EFFICIENCY_WORD = re.compile(r"efficien|effizienz|efficacit|eficien", re.IGNORECASE)
SPEED_WORD = re.compile(
    r"speed-?ups?|faster|beschleunigung|schneller|accélération|plus rapide|"
    r"accelerazione|più veloce|aceleración|más rápido",
    re.IGNORECASE,
)
# Words before a percentage that make it something other than an efficiency.
OTHER_BEFORE = re.compile(
    r"MFU|utili[sz]|auslastung|overhead|communicat|kommunikation|comunica|loading|"
    r"laden|chargement|caricamento|carga|memory|speicher|mémoire|memoria|idle|"
    r"leerlauf|share|anteil|quota|cuota|surcoût|sobrecarga|accuracy|genauigkeit|"
    r"précision|precisione|precisión",
    re.IGNORECASE,
)
# Words right after a percentage that make it something else: "38 % MFU", "45 % of
# the step", "30 % der Zeit", "30 % du temps", "30 % del tempo", "30 % del tiempo".
OTHER_AFTER = re.compile(
    r"\s{0,3}(?:(?:of|der|des|du|de|di|del|della|dello|de la|de l')\s{0,3}"
    r"(?:the\s{1,3})?)?(?:MFU|model flops|utili[sz]|auslastung|overhead|communicat|"
    r"kommunikation|comunica|surcoût|sobrecarga|step|time|zeit|temps|tempo|tiempo|"
    r"budget|presupuesto|allocation|hours|stunden|heures|ore\b|horas|schritt|étape|"
    r"passo|paso|l'étape|memory|speicher|mémoire|memoria)",
    re.IGNORECASE,
)
# Linking words that may stand between a claim and the count it is about ("92 %
# [parallel efficiency] at 64 GPUs"), lower case.
LINK_WORDS = frozenset(
    """
    at on with using across for up to the of in per a an parallel scaling strong
    weak is was are be reach reached reaches reaching achieved achieves bei mit auf
    für von unter den die der dem im zu bis parallele paralleler skalierungs
    skalierung erreicht erreichen sur avec à pour de d des du le la les l en jusqu
    parallèle mise échelle atteint atteignons su con per a di da fino del della
    dello sui su alle parallela scalabilità raggiunge raggiungiamo con en sobre para
    de el los las hasta usando utilizando paralela escalado alcanza alcanzamos
    """.split()  # noqa: SIM905
)
# Prepositions that make a count the head of its clause ("At 64 GPUs, ...").
HEAD_PREPOSITIONS = frozenset(
    """
    at on with using across for bei mit auf unter für sur avec à pour en su con a
    per con en sobre para usando utilizando
    """.split()  # noqa: SIM905
)
# Words that make the GPU count after a speedup its baseline ("3.5x over 4 GPUs",
# "7,5-fach gegenüber 8 GPUs", "par rapport à 8 GPU", "rispetto a 8 GPU",
# "respecto a 8 GPU").
BASELINE = re.compile(
    r"(?:\bover|relative to|compared (?:to|with)|\bvs\.?|versus|\bthan|against|"
    r"gegenüber|im vergleich zu|verglichen mit|\bals|par rapport (?:à|aux?)|"
    r"comparée? (?:à|aux?)|rispetto (?:a|ai|agli)|confrontat[oa] con|"
    r"respecto (?:a|de)|frente a|comparado con|en comparación con)"
    r"\s{1,3}(?:(?:the|den|die|le|la|les|il|i|el|los|las)\s{1,3})?$",
    re.IGNORECASE,
)
JOB_WORD = re.compile(
    r"\bjobs?\b|\bruns?\b|\bläufe?\b|\blauf\b|\btâches?\b|\btravaux\b|"
    r"\bexécutions?\b|\blavor[oi]\b|\besecuzion[ei]\b|\btrabajos?\b|\btareas?\b|"
    r"\bejecucion",
    re.IGNORECASE,
)
TEST_WORD = re.compile(
    r"\btest|measur|benchmark|\bscaled\b|gemessen|messung|mesur|misur|\bprova|"
    r"prueba|medid|medimos|medición|essai",
    re.IGNORECASE,
)
HOURS_CONTEXT = re.compile(
    r"\b(?:total|in all|overall|request|requesting|requested|ask|asking|apply|"
    r"applying|allocation|budget|insgesamt|gesamt|beantrag|antrag|zuteilung|"
    r"demand|sollicit|totale|complessiv|richied|richiest|assegnazione|"
    r"solicit|pedimos|asignación|presupuesto)",
    re.IGNORECASE,
)
# A GPU-hour figure that is a part of the total, not the total.
PART_OF = re.compile(
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
OTHER_ALLOCATION = re.compile(
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
ELSEWHERE = re.compile(
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
DURATION_CONTEXT = re.compile(
    r"\b(?:allocation|duration|project|period|laufzeit|dauer|zuteilung|projekt|"
    r"zeitraum|durée|projet|période|durata|allocazione|assegnazione|progetto|"
    r"periodo|duración|asignación|proyecto|período)",
    re.IGNORECASE,
)
# A months figure that is one phase or a bound, not the allocation's duration.
DURATION_NOT = re.compile(
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
LOWER_BOUND = re.compile(
    r"(?:over|above|more than|greater than|at least|exceed(?:s|ing)?|beyond|"
    r"upwards of|no less than|über|mehr als|mindestens|oberhalb von|plus de|"
    r"au moins|supérieure? à|au-delà de|più di|almeno|oltre|superiore a|"
    r"más de|al menos|por encima de|superior a|>|≥|>=)\s{0,3}$",
    re.IGNORECASE,
)
UPPER_BOUND = re.compile(
    r"(?:under|below|less than|at most|up to|no more than|within|unter|"
    r"weniger als|höchstens|bis zu|unterhalb von|moins de|au plus|jusqu'à|"
    r"inférieure? à|meno di|al massimo|fino a|inferiore a|menos de|como máximo|"
    r"hasta|inferior a|<|≤|<=)\s{0,3}$",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"(?<=[.!?;])\s++(?=[A-ZÀ-ÖØ-Þ(\"“¿¡«])|\n+")

# ------------------------------------------------------------------ figures
# Numbers: grouped thousands ("18,176", "18.176", "18 176") or a plain number with
# decimals ("7.5", "7,5"). Every repetition is bounded, so a search costs the same
# per character whatever a line holds.
NUM = (
    r"(?<![\d.,])(?:\d{1,3}(?:[,.\u00a0\u202f ]\d{3}){1,4}(?:[.,]\d{1,3})?"
    r"|\d{1,7}(?:[.,]\d{1,3})?)(?!\d)"
)
INT = r"(?<![\d.,])(?:\d{1,3}(?:[,.\u00a0\u202f ]\d{3}){1,3}|\d{1,6})(?![\d]|[.,]\d)"
PCT_WORD = (
    r"(?:%|\s?(?:percent|per\s?cent|prozent|pour\s?cent|per\s?cento|"
    r"por\s?ciento)\b)"
)
PCT = re.compile(
    rf"(?:(?:between|zwischen|entre|tra|fra)\s{{1,3}}(?P<blo>{NUM})\s{{0,2}}%?"
    rf"\s{{0,2}}(?:and|und|et|e|y)\s{{1,3}}(?P<bhi>{NUM})"
    rf"|(?P<lo>{NUM})\s{{0,2}}%?\s{{0,2}}(?:-|–|—|to\b|bis\b|à\b|au\b|a\b|al\b)"
    rf"\s{{0,3}}(?P<hi>{NUM})"
    rf"|(?P<one>{NUM}))\s{{0,2}}{PCT_WORD}",
    re.IGNORECASE,
)
SPEEDUP = re.compile(
    rf"(?P<value>{NUM})\s{{0,2}}(?:x|×|-?fold|-?fach|-?mal|times|fois|volte|veces)"
    rf"(?![^\W\d_])"
    rf"|(?:factor|faktor|facteur|fattore)(?:\s{{1,3}}(?:of|von|de|di))?"
    rf"\s{{1,3}}(?P<fvalue>{NUM})",
    re.IGNORECASE,
)
GPU_NOUN = (
    r"(?:GPUs?|GCDs?|A100s?|H100s?|H200s?|B200s?|GH200s?|MI250Xs?|MI300Xs?|"
    r"accelerators?|beschleunigern?|accélérateurs?|acceleratori|aceleradores)"
)
NOT_HOURS = r"(?![-\s]{0,2}(?:hours?|h\b|stunden|std\b|heures?|ore\b|horas?))"
COUNT = re.compile(
    rf"(?P<n>{INT})\s{{0,2}}(?:(?:NVIDIA|AMD)\s{{1,2}})?(?P<word>{GPU_NOUN})\b"
    rf"{NOT_HOURS}",
    re.IGNORECASE,
)
# A bare count after "at" (English, as in "88 % at 16.").
BARE = re.compile(
    r"\b(?:at|on|with|using|across)\s{1,3}(?P<n>\d{1,6})(?=\s{0,2}(?:[.,;:)]|$))"
    r"(?![.,]\d)",
    re.IGNORECASE,
)
RANGE = re.compile(
    rf"\b(?:from|von|de|des|da|dal|desde|between|zwischen|entre|tra|fra)\s{{1,3}}"
    rf"(?P<base>{INT})\s{{0,2}}(?:{GPU_NOUN}\s{{1,3}})?"
    rf"(?:to|auf|bis|à|a|au|al|hasta|and|und|et|e|y)\s{{1,3}}"
    rf"(?P<to>{INT})\s{{0,2}}(?P<word>{GPU_NOUN})\b{NOT_HOURS}",
    re.IGNORECASE,
)
THROUGHPUT = re.compile(
    rf"(?P<n>{NUM})\s{{0,2}}(?P<k>k|K|M|Mio\.?|million|millions|millionen|milioni|"
    rf"millones)?\s{{0,2}}(?P<unit>{UNIT_TEXT.pattern})",
    re.IGNORECASE,
)
HOURS = re.compile(
    rf"(?P<n>{NUM})\s{{0,2}}(?P<k>k|K|thousand|Tsd\.?|mille|mila|mil)?\s{{0,2}}"
    r"(?:GPU[- ]?(?:hours?|h\b|stunden)|heures?[- ](?:de[- ])?GPU|ore[- ]GPU|"
    r"horas?[- ](?:de[- ])?GPU)",
    re.IGNORECASE,
)
MONTHS = re.compile(
    r"(?<![\d.,])(?P<n>\d{1,2})\s{0,2}-?\s{0,2}(?:months?|monaten?|monats?|"
    r"monatig\w{0,3}|mois|mesi|mese|meses|mes)\b",
    re.IGNORECASE,
)
MAX_GPUS = re.compile(
    rf"(?:up to|at most|maximum(?: of)?|max\.?(?: of)?|no more than|largest job"
    rf"(?: uses| of| on| runs on)?|bis zu|höchstens|maximal|jusqu'à|au plus|"
    rf"au maximum|pas plus de|fino a|al massimo|non più di|hasta|como máximo|"
    rf"no más de)\s{{1,3}}(?P<n>{INT})\s{{0,2}}(?P<word>GPUs?|GCDs?)\b{NOT_HOURS}",
    re.IGNORECASE,
)
PER_JOB = re.compile(
    rf"(?P<n>{INT})\s{{0,2}}(?P<word>GPUs?|GCDs?)\s{{1,3}}(?:per|each|a|pro|je|"
    rf"par|por|para|ogni)\s{{1,3}}(?:job|run|lauf|tâche|travail|exécution|lavoro|"
    rf"esecuzione|trabajo|tarea|ejecución)\b",
    re.IGNORECASE,
)
WORD = re.compile(r"[^\W\d_]+")
