# Semantic test of MPS005 (autocast-mps-unsupported), its form with a branch:
# `with torch.autocast(D, ...)` whose device type D is a variable or an
# attribute becomes
# `with (torch.autocast(D, ...) if D != "mps" else contextlib.nullcontext())`.
# Where the device type is not "mps" (here "cpu": MPS is not available) the
# same autocast runs with the same arguments: the same values and dtypes, and
# autocast on inside the block (`sites`).  Where MPS is available
# (is_available patched, the on-mps lines) the script picks "mps": torch before
# 2.5 refuses that device type, so the original records the error, while the
# fixed script enters a null context and runs the block in float32 without
# autocast.  The tensors stay on the CPU: only the device type string is "mps",
# so no MPS device is needed; the values the original cannot compute there
# (`values`) are compared only where MPS is not available.  The rule covers
# torch < 2.5, and the harness targets every MPS-capable version, beyond that
# range: there the fix is unsafe, hence `unsafe`.
# semantic: requires torch<2.5
# semantic: unsafe
# semantic: fixes MPS005=5
# semantic: on-mps sites = dict.fromkeys(["name", "attribute", "keyword", "amp", "two_items"], (False, torch.float32))
# semantic: on-mps-ignore values
import contextlib
import types

import torch

torch.manual_seed(0)
_w = torch.randn(4, 3)
_x = torch.randn(2, 4)
device_type = "mps" if torch.backends.mps.is_available() else "cpu"
_device = types.SimpleNamespace(type=device_type)

# each block: (autocast on inside it, the dtype of its product), or the error
sites = {}
values = {}


def _record(name, block):
    try:
        out, inside = block()
    except RuntimeError as e:
        sites[name] = "RuntimeError: " + str(e).splitlines()[0]
        return
    sites[name] = (inside, out.dtype)
    values[name] = out


def by_name():
    with torch.autocast(device_type, dtype=torch.bfloat16):
        return _x @ _w, torch.is_autocast_cpu_enabled()


def by_attribute():
    with torch.autocast(_device.type, dtype=torch.bfloat16) as _ctx:
        return _x @ _w, torch.is_autocast_cpu_enabled()


def by_keyword():
    with torch.autocast(dtype=torch.bfloat16, device_type=device_type, enabled=True):
        return (_x + 1) @ _w, torch.is_autocast_cpu_enabled()


def by_amp():
    with torch.amp.autocast(device_type, dtype=torch.bfloat16):
        return torch.mm(_x, _w), torch.is_autocast_cpu_enabled()


def two_items():
    with contextlib.nullcontext(), torch.autocast(device_type, dtype=torch.bfloat16):
        return _x @ _w, torch.is_autocast_cpu_enabled()


def literal_cpu():
    # not matched: a literal device type other than "mps"
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return _x @ _w, torch.is_autocast_cpu_enabled()


_record("name", by_name)
_record("attribute", by_attribute)
_record("keyword", by_keyword)
_record("amp", by_amp)
_record("two_items", two_items)
kept = literal_cpu()
outside = torch.is_autocast_cpu_enabled()
