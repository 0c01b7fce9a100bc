"""Throughput units as people write them, in five languages, and the canonical unit
each one means.

A throughput is written "tokens/s", "Token/s", "Tokens pro Sekunde", "jetons/s",
"échantillons par seconde", "campioni/s", "muestras por segundo", "Bilder/s",
"it/s"; the wizard stores and compares four canonical units (``tokens/s``,
``samples/s``, ``images/s``, ``steps/s``), with ``/GPU`` when the figure is one
GPU's. This is the one vocabulary of those words: the paste reader maps a pasted
header's or cell's unit through it (and refuses a unit it cannot map), and the
narrative check (PLAN-4) reads throughput claims with it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

TOKENS = "tokens/s"
SAMPLES = "samples/s"
IMAGES = "images/s"
STEPS = "steps/s"
CANONICAL = (TOKENS, SAMPLES, IMAGES, STEPS)
PER_GPU = "/GPU"

# What is counted, lower case, accents kept (English, German, French, Italian,
# Spanish). Sequences are samples (one sample is one sequence of the model's
# length), as the MFU check reads them; iterations are steps.
WORDS: dict[str, tuple[str, ...]] = {
    TOKENS: (
        "token",
        "tokens",
        "tok",
        "toks",
        "tkn",
        "tkns",
        "jeton",
        "jetons",
        "gettone",
        "gettoni",
        "tokenes",
    ),
    SAMPLES: (
        "sample",
        "samples",
        "smp",
        "seq",
        "seqs",
        "sequence",
        "sequences",
        "example",
        "examples",
        "sequenz",
        "sequenzen",
        "beispiel",
        "beispiele",
        "stichprobe",
        "stichproben",
        "échantillon",
        "échantillons",
        "séquence",
        "séquences",
        "exemple",
        "exemples",
        "campione",
        "campioni",
        "sequenza",
        "sequenze",
        "esempio",
        "esempi",
        "muestra",
        "muestras",
        "secuencia",
        "secuencias",
        "ejemplo",
        "ejemplos",
    ),
    IMAGES: (
        "image",
        "images",
        "img",
        "imgs",
        "bild",
        "bilder",
        "immagine",
        "immagini",
        "imagen",
        "imágenes",
    ),
    STEPS: (
        "step",
        "steps",
        "it",
        "its",
        "iter",
        "iters",
        "iteration",
        "iterations",
        "batch",
        "batches",
        "schritt",
        "schritte",
        "iterationen",
        "étape",
        "étapes",
        "pas",
        "itération",
        "itérations",
        "lot",
        "lots",
        "passo",
        "passi",
        "iterazione",
        "iterazioni",
        "paso",
        "pasos",
        "iteración",
        "iteraciones",
        "lote",
        "lotes",
    ),
}
_BY_WORD = {word: unit for unit, words in WORDS.items() for word in words}

# "per second" after the counted word: "/s", "/sec", "/ second", "per second",
# "pro Sekunde", "je Sekunde", "par seconde", "al secondo", "per secondo", "por
# segundo", "a la seconde".
SECOND_WORDS = (
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "sekunde",
    "seconde",
    "secondo",
    "segundo",
)
PER_WORDS = ("per", "pro", "je", "par", "al", "por", "a", "à", "la", "each", "every")
GPU_WORDS = ("gpu", "gpus", "gcd", "gcds", "device", "devices", "grafikkarte")
_WORD = re.compile(r"[^\W\d_]+")
# A unit as written in a table or a sentence: a word, then "/s" or "per second"
# (one word between at most), then an optional "/GPU" or "per GPU". The lengths are
# bounded, so a search costs the same per character whatever the line holds.
UNIT_TEXT = re.compile(
    r"(?<![^\W\d_])[^\W\d_][\w.-]{0,31}"
    r"(?:\s{0,3}/\s{0,3}(?:s|sec|secs?|second|seconds|sekunde|seconde|secondo|"
    r"segundo)\b|\s{1,3}(?:per|pro|je|par|al|por|a|à)\s{1,3}(?:la\s{1,3})?"
    r"(?:second|sekunde|seconde|secondo|segundo)\b)"
    r"(?:\s{0,3}(?:/|per|pro|je|par|por)\s{0,3}(?:GPU|GCD|device)s?\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class UnitReading:
    """A unit as written (``text``) and what it means: a canonical unit ("" when
    it cannot be mapped) and whether the figure is one GPU's."""

    text: str
    canonical: str
    per_gpu: bool = False

    @property
    def unit(self) -> str:
        """The canonical unit to store ("tokens/s" or "tokens/s/GPU"), or ""."""
        if not self.canonical:
            return ""
        return self.canonical + (PER_GPU if self.per_gpu else "")


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFC", text).lower()
    return _WORD.findall(folded)


def read_unit(text: str) -> UnitReading:
    """What ``text`` ("Token/s", "échantillons par seconde", "tok/s/GPU") means.

    A unit is mapped when its words are one counted word (tokens, samples,
    images, steps in one of the five languages), per second, and optionally per
    GPU, and nothing else: "chantillons/s" or "frames/s" are not mapped."""
    text = (text or "").strip()
    words = _words(text)
    if not words:
        return UnitReading(text, "")
    counted, rest = words[0], words[1:]
    unit = _BY_WORD.get(counted)
    if unit is None and counted.endswith("s"):
        unit = _BY_WORD.get(counted[:-1])
    per_gpu = False
    if rest and rest[-1] in GPU_WORDS:
        per_gpu = True
        rest = rest[:-1]
        if rest and rest[-1] in PER_WORDS:
            rest = rest[:-1]
    if not rest or rest[-1] not in SECOND_WORDS:
        return UnitReading(text, "")
    rest = [w for w in rest[:-1] if w not in PER_WORDS]
    if rest or unit is None:
        return UnitReading(text, "", per_gpu)
    return UnitReading(text, unit, per_gpu)


def canonical_unit(text: str) -> str:
    """The canonical unit ``text`` means ("tokens/s", "samples/s/GPU"), or ""."""
    return read_unit(text).unit
