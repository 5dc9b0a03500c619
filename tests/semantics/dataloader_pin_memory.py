# Semantic test of MPS101 (dataloader-pin-memory).
# DataLoader(..., pin_memory=True) becomes
# pin_memory=not torch.backends.mps.is_available(), any other value V becomes
# not torch.backends.mps.is_available() and V; literal False and values that
# already test torch.cuda.is_available() or torch.backends.mps.is_available()
# stay.  Where MPS is not available (this machine) the value must be exactly
# what it was: the loader's pin_memory attribute (True, a variable's 1 or
# "yes" as they were), every batch, the order of shuffled batches, whether the
# batches are pinned, and how often the value of pin_memory is evaluated.
# Where MPS is available (is_available patched, the on-mps lines), every
# loader the fix rewrote gets pin_memory=False, the value V is not evaluated,
# and the batches are the same.
# semantic: fixes MPS101=17
# semantic: on-mps pin_attrs = [False] * 18
# semantic: on-mps asked = 0
import types

import torch
import torch as th
import torch.utils.data
from torch.utils import data
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data import DataLoader as DL

torch.manual_seed(0)
_features = torch.randn(10, 3, dtype=torch.float64)
_labels = torch.arange(10)
_ds = TensorDataset(_features, _labels)


# the pin_memory attribute of each loader the fix rewrites, and of the others
pin_attrs = []
kept_attrs = []


def batches(loader, rewritten=True):
    """Every batch of one epoch, and whether its tensors are pinned; the
    loader's pin_memory goes to pin_attrs (kept_attrs: a loader left alone)."""
    (pin_attrs if rewritten else kept_attrs).append(loader.pin_memory)
    out = [tuple(b) for b in loader]
    return out, [t.is_pinned() for b in out for t in b]


# the literal True, spelled in every way the imports allow
qualified = batches(torch.utils.data.DataLoader(_ds, batch_size=4, pin_memory=True))
first = batches(DataLoader(pin_memory=True, dataset=_ds, batch_size=3))
aliased = batches(DL(_ds, pin_memory=True, batch_size=5))
module_alias = batches(th.utils.data.DataLoader(_ds, batch_size=2, pin_memory=True))
from_module = batches(data.DataLoader(_ds, batch_size=6, pin_memory=True))
shuffled = batches(DataLoader(_ds, batch_size=3, shuffle=True,
                              generator=torch.Generator().manual_seed(7), pin_memory=True))
lines = batches(DataLoader(
    _ds,
    batch_size=4,  # small batches
    drop_last=True,
    pin_memory=True,  # faster host-to-GPU copies
))

# other values: V and torch.cuda.is_available()
pin = True
no_pin = False
use_cuda = False
variable = batches(DataLoader(_ds, batch_size=4, pin_memory=pin))
variable_false = batches(DataLoader(_ds, batch_size=4, pin_memory=no_pin))
either = batches(DataLoader(_ds, batch_size=4, pin_memory=use_cuda or pin))
conditional = batches(DataLoader(_ds, batch_size=4, pin_memory=True if pin else False))
_cfg = types.SimpleNamespace(pin=True, batch=5)
attribute = batches(DataLoader(_ds, batch_size=_cfg.batch, pin_memory=_cfg.pin))
# values that are true but not True stay as they are (not True, not False)
pin_count = 1
pin_word = "yes"
counted = batches(DataLoader(_ds, batch_size=4, pin_memory=pin_count))
worded = batches(DataLoader(_ds, batch_size=4, pin_memory=pin_word))

asked = 0


def wants_pin():
    global asked
    asked += 1
    return True


called = batches(DataLoader(_ds, batch_size=4, pin_memory=wants_pin()))


def make_loader(ds, batch_size=4):
    return DataLoader(ds, batch_size=batch_size, pin_memory=True)


in_function = batches(make_loader(_ds))
in_comprehension = [batches(DataLoader(_ds, batch_size=b, pin_memory=True)) for b in (2, 7)]

# left alone: no finding at all
literal_false = batches(DataLoader(_ds, batch_size=4, pin_memory=False), False)
already_guarded = batches(DataLoader(_ds, batch_size=4, pin_memory=torch.cuda.is_available()), False)
guarded_and = batches(DataLoader(_ds, batch_size=4, pin_memory=pin and torch.cuda.is_available()), False)
guarded_mps = batches(DataLoader(_ds, batch_size=4, pin_memory=not torch.backends.mps.is_available()), False)
guarded_mps_and = batches(DataLoader(_ds, batch_size=4,
                                     pin_memory=pin and not torch.backends.mps.is_available()), False)
unpinned = batches(DataLoader(_ds, batch_size=4), False)
kwargs = batches(DataLoader(_ds, **{"batch_size": 4, "pin_memory": True}), False)
