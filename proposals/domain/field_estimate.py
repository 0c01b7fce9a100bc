"""The optional inputs of the compute estimate, per code entry (parameters N, tokens
D or data set size x epochs x tokens per sample, assumed MFU): part of
:data:`.field_catalogue.FIELDS`, kept here so that each file stays short."""

from __future__ import annotations

from .fieldspec import FieldSpec, row
from .i18n import gettext_noop
from .types import MODEL_USES
from .values import choice, number

ESTIMATE_FIELDS: tuple[FieldSpec, ...] = (
    row(
        "codes",
        "model_use",
        gettext_noop("What the model does"),
        help=(
            gettext_noop(
                "Training counts 6·N FLOPs per token (forward and backward pass), "
                "inference 2·N per token."
            )
        ),
        term="flops-estimate",
        value=choice(
            MODEL_USES,
            description="training (6·N·D FLOPs) or inference (2·N FLOPs per token).",
            default="training",
        ),
    ),
    row(
        "codes",
        "model_parameters",
        gettext_noop("Model parameters (N)"),
        width="num",
        help=gettext_noop(
            "Optional: the number of parameters, for the 6·N·D compute estimate."
        ),
        example="1,400,000,000",
        term="flops-estimate",
        value=number(
            description="Model parameters N (1400000000 for 1.4 B).", default=None
        ),
    ),
    row(
        "codes",
        "training_tokens",
        gettext_noop("Tokens processed (D)"),
        width="num",
        unit=gettext_noop("tokens"),
        help=(
            gettext_noop(
                "Optional: all tokens the model trains on, over all epochs (for "
                "inference: the tokens generated or read). Or give the data set size, "
                "epochs and tokens per sample below."
            )
        ),
        example="30,000,000,000",
        value=number(
            description="Tokens D processed in all (all epochs); for inference, "
            "the tokens generated or read.",
            default=None,
        ),
    ),
    row(
        "codes",
        "dataset_samples",
        gettext_noop("Data set size (samples)"),
        width="num",
        help=gettext_noop("Optional, instead of the tokens: samples in the data set."),
        example="1,000,000",
        value=number(
            description="Samples in the data set (with epochs and tokens_per_sample "
            "instead of training_tokens).",
            default=None,
        ),
    ),
    row(
        "codes",
        "epochs",
        gettext_noop("Epochs"),
        width="num",
        example="3",
        value=number(default=None),
    ),
    row(
        "codes",
        "tokens_per_sample",
        gettext_noop("Tokens per sample"),
        width="num",
        help=gettext_noop(
            "Also turns a samples/s measurement into tokens/s for the MFU check."
        ),
        example="2,048",
        value=number(
            description="Also turns samples/s measurements into tokens/s.", default=None
        ),
    ),
    row(
        "codes",
        "assumed_mfu_pct",
        gettext_noop("Assumed MFU (%)"),
        width="pct",
        short=gettext_noop("MFU %"),
        unit=gettext_noop("%"),
        help=(
            gettext_noop(
                "Optional: the model FLOPs utilisation you expect. Blank: the MFU of your "
                "measurements of this code, else 40 %."
            )
        ),
        term="mfu",
        value=number(
            description="MFU assumed for the estimate; null: the measurements' MFU, "
            "else 40.",
            default=None,
        ),
    ),
)
