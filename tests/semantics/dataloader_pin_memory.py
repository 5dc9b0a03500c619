# Semantic test of MPS101 (dataloader-pin-memory).
# DataLoader(..., pin_memory=True) becomes pin_memory=torch.cuda.is_available(),
# any other value V becomes V and torch.cuda.is_available(); literal False and
# values that already test torch.cuda.is_available() stay.  Pinning decides
# where a batch's host memory lives, never its values: every batch, the order
# of shuffled batches, whether the batches are pinned, and how often the value
# of pin_memory is evaluated must be the same.
# semantic: fixes MPS101=15
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


def batches(loader):
    """Every batch of one epoch, and whether its tensors are pinned."""
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
literal_false = batches(DataLoader(_ds, batch_size=4, pin_memory=False))
already_guarded = batches(DataLoader(_ds, batch_size=4, pin_memory=torch.cuda.is_available()))
guarded_and = batches(DataLoader(_ds, batch_size=4, pin_memory=pin and torch.cuda.is_available()))
unpinned = batches(DataLoader(_ds, batch_size=4))
kwargs = batches(DataLoader(_ds, **{"batch_size": 4, "pin_memory": True}))
