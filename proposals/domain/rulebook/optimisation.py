"""OPT rules: the optimisation plan.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import ERROR, INFO, WARNING, Context, Hit, rule
from ..i18n import gettext as _
from ..i18n import gettext_noop, join_and
from ..tiers import tier_label
from .common import DIGIT, exploratory, words

TECHNIQUE = words(
    r"fsdp",
    r"ddp\b",
    r"flash-?attention",
    r"checkpoint",
    r"data ?load",
    r"mixed precision",
    r"bf16",
    r"fp16",
    r"fp8",
    r"quantiz",
    r"quantis",
    r"deepspeed",
    r"zero\b",
    r"compile",
    r"kernel",
    r"batch size",
    r"gradient",
    r"nccl",
    r"rccl",
    r"shard",
    r"prefetch",
    r"pipelin",
    r"parallel",
    r"profil",
    r"port",
    r"hip\b",
    r"rocm",
    r"cuda",
    r"fus",
    r"offload",
    r"cach",
    r"i/o",
    r"workers",
    r"distributed",
    r"precision",
    r"memory",
)


@rule(
    "OPT-1",
    severity=(ERROR, WARNING, INFO),
    title=gettext_noop("Optimisation plan missing or vague"),
    step="optimisation",
)
def opt_plan(ctx: Context) -> Iterator[Hit]:
    """The optimisation text is empty (error), or names no concrete technique or
    gives no quantified benefit (warning). In Playground, where the guides ask for
    the tests or optimisations planned "if any" and their examples name what will be
    learnt or ported without figures, an empty text or one without a technique is a
    note (info) and no figure is asked for."""
    text = ctx.proposal.optimisation_narrative
    optional = exploratory(ctx.mode)
    if not text.strip():
        if optional:
            yield Hit(
                "optimisation.narrative",
                _(
                    "Optional in {tier}: if you plan tests or optimisations (for "
                    "example learning multi-GPU training with DDP, or porting your code "
                    "to the target GPUs), say which."
                ).format(tier=tier_label(ctx.tier)),
                INFO,
            )
            return
        yield Hit(
            "optimisation.narrative",
            _(
                "Describe the concrete optimisations you plan: which component, which "
                "technique, and the expected gain."
            ),
        )
        return
    missing = []
    if not TECHNIQUE.search(text):
        missing.append(
            _("the technique (FSDP, FlashAttention, checkpointing, data loading, ...)")
        )
    if not DIGIT.search(text) and not optional:
        missing.append(_("the expected gain in numbers"))
    if missing:
        yield Hit(
            "optimisation.narrative",
            _("Make the optimisation plan concrete: add {missing}.").format(
                missing=join_and(missing)
            ),
            INFO if optional else WARNING,
        )
