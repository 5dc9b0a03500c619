# Semantic test of MPS103 (pin-memory-mps-guard).
# `A or torch.backends.mps.is_available()` as a pin_memory value becomes A
# where A is True or False already (a `not`, an is_available() call), else
# `A or False`: a comparison of NumPy or torch values is no bool.  Where MPS is not available (this machine) every
# value must be exactly what it was, falsy values that are not False
# included (`None or is_available()` is False, not None).  Where MPS is
# available (is_available patched, the on-mps lines) only a value A that is
# True turns pinning on.
# semantic: fixes MPS103=13
# semantic: on-mps turned_on = [False] * 9 + [True, False]
# semantic: on-mps-ignore pin_memory pin_count pin_text pin_flag pin_cuda pin_from pin_not pin_and kw_values values
import types

import numpy as np
import torch

_args = types.SimpleNamespace(pin=None, pin_mem=0, yes="yes", on=True)

# assigned to a name or attribute whose name holds "pin"
pin_memory = None or torch.backends.mps.is_available()
pin_count = _args.pin_mem or torch.backends.mps.is_available()
pin_text = _args.yes or torch.backends.mps.is_available()
pin_flag = _args.pin_mem != 0 or torch.backends.mps.is_available()
pin_cuda = torch.cuda.is_available() or torch.backends.mps.is_available()
_args.pin_from = (_args.pin or torch.backends.mps.is_available())
pin_not = not _args.on or torch.backends.mps.is_available()
pin_and = _args.pin and torch.cuda.is_available() or torch.backends.mps.is_available()
# comparisons whose value is no bool: the original's is False (a bool) off MPS
_pin_np = np.int64(0) > 0 or torch.backends.mps.is_available()
_pin_tensor = torch.zeros(3).sum() != 0 or torch.backends.mps.is_available()
pin_np_type = type(_pin_np).__name__
pin_tensor_type = type(_pin_tensor).__name__

# as a pin_memory= argument (a DataLoader's is MPS101's)
def _kw(pin_memory=None):
    return pin_memory


kw_values = [
    _kw(pin_memory=_args.pin or torch.backends.mps.is_available()),
    _kw(pin_memory=_args.on or torch.backends.mps.is_available()),
    _kw(pin_memory=_args.pin_mem or torch.backends.mps.is_available()),
]
values = [pin_memory, pin_count, pin_text, pin_flag, pin_cuda, _args.pin_from, pin_not, pin_and] + kw_values
pin_from = _args.pin_from
turned_on = [v is True for v in values]
