"""What a log says about the devices it ran on: whether its GPU counts are
physical GPUs or GCDs.

On an MI250X (LUMI-G) each of the two compute dies (GCDs) is a device of its own:
the runtime names it ("AMD Instinct MI250X", "gfx90a"), Slurm counts it as a GPU
and one rank drives it, so a log made there counts GCDs. A log that names another
device (an A100, an H100, "NVIDIA ...") was made elsewhere and counts physical
GPUs. Without a device name, the ranks per node tell: as many as a node's GCDs
(8 on a 4-GPU MI250X node) means GCDs. Otherwise the log does not say, and the
person is asked (:func:`gpu_unit`).
"""

from __future__ import annotations

import re

from ..i18n import gettext
from .lines import Reader

#: Device names whose every GCD is a device of its own (lower case).
GCD_DEVICES = ("mi250x", "mi250", "gfx90a")
#: Device names of GPUs that are one device each (lower case).
WHOLE_DEVICES = (
    "a100", "h100", "h200", "gh200", "b200", "v100", "l40s", "mi300x", "mi300a",
    "mi210", "gfx942", "nvidia", "tesla",
)  # fmt: skip
#: A model's name first, the vendor's ("NVIDIA") only without one.
_DEVICE = re.compile(
    r"\b(" + "|".join(GCD_DEVICES + WHOLE_DEVICES[:-2]) + r")\b", re.IGNORECASE
)
_VENDOR = re.compile(r"\b(nvidia|tesla)\b", re.IGNORECASE)
_PER_NODE_WORDS = (
    "local_world_size", "nproc_per_node", "nproc-per-node", "ntasks-per-node",
    "ntasks_per_node", "ranks per node", "gpus per node", "gpus_per_node",
)  # fmt: skip
_PER_NODE = re.compile(
    r"(?:"
    + "|".join(re.escape(w) for w in _PER_NODE_WORDS)
    + r")[\s:=\"']{0,3}(\d{1,3})\b",
    re.IGNORECASE,
)
_WORLD = re.compile(r"\bworld[_ ]size[\s:=\"']{0,3}(\d{1,6})\b", re.IGNORECASE)
_NODES = re.compile(
    r"(?:\bnnodes|\bnum_nodes|\bslurm_nnodes|--nodes)[\s:=\"']{0,3}(\d{1,5})\b",
    re.IGNORECASE,
)


class Devices(Reader):
    """Not a format: keeps the first device name and ranks per node a log states
    (it gives no measurement)."""

    name = ""
    accompanies = True
    # Few and short (each is one search per block of every file): "world_size"
    # covers LOCAL_WORLD_SIZE, "nodes" NNODES and --nodes, "gfx9" gfx90a and
    # gfx942, "instinct" and "nvidia" the other models as runtimes name them.
    triggers = (
        "mi250", "instinct", "gfx9", "nvidia", "a100", "h100", "per_node",
        "per-node", "per node", "world_size", "world size", "nodes",
    )  # fmt: skip

    def __init__(self, unread):
        super().__init__(unread)
        self.device: tuple[str, int] | None = None
        self.per_node: tuple[int, int] | None = None
        self.world: tuple[int, int] | None = None
        self.nodes: tuple[int, int] | None = None

    def feed(self, number, line):
        if self.device is None or self.device[0].lower() in ("nvidia", "tesla"):
            match = _DEVICE.search(line) or (
                self.device is None and _VENDOR.search(line)
            )
            if match:
                self.device = (match.group(1), number)
        if self.per_node is None and (match := _PER_NODE.search(line)):
            self.per_node = (int(match.group(1)), number)
        if self.world is None and (match := _WORLD.search(line)):
            self.world = (int(match.group(1)), number)
        if self.nodes is None and (match := _NODES.search(line)):
            self.nodes = (int(match.group(1)), number)

    def measurements(self, file, gpus):
        return []

    def evidence(self) -> dict:
        """The device and ranks per node stated, for :class:`.Measurement`."""
        found: dict[str, object] = {}
        if self.device:
            found["device"], found["device_line"] = self.device
        per_node = self.per_node
        if per_node is None and self.world and self.nodes and self.nodes[0] > 0:
            ranks, rest = divmod(self.world[0], self.nodes[0])
            if not rest:
                per_node = (ranks, self.nodes[1])
        if per_node and per_node[0] > 0:
            found["per_node"], found["per_node_line"] = per_node
        return found


def gpu_unit(item, gpus_per_node: int, gcds_per_gpu: int) -> tuple[str, str]:
    """``("gcds", why)`` or ``("gpus", why)`` when ``item``'s log says how it
    counts GPUs on a system of ``gcds_per_gpu`` GCDs per GPU, else ``("", "")``:
    ask the person."""
    if gcds_per_gpu <= 1:
        return "gpus", ""
    device = getattr(item, "device", "")
    if device:
        if device.lower() in GCD_DEVICES:
            return "gcds", gettext(
                "the log names {device} (line {line}), each of whose GCDs is a device: "
                "its counts are GCDs"
            ).format(device=device, line=item.device_line)
        return "gpus", gettext(
            "the log names {device} (line {line}), a GPU made elsewhere: its counts "
            "are physical GPUs"
        ).format(device=device, line=item.device_line)
    per_node = getattr(item, "per_node", 0)
    if per_node and gpus_per_node and per_node == gpus_per_node * gcds_per_gpu:
        return "gcds", gettext(
            "{ranks} ranks per node (line {line}) on a node of {gpus} GPUs with "
            "{gcds} GCDs each: its counts are GCDs"
        ).format(
            ranks=per_node,
            line=item.per_node_line,
            gpus=gpus_per_node,
            gcds=gcds_per_gpu,
        )
    return "", ""
