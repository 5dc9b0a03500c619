# Semantic test of MPS008 (cuda-synchronize).
# torch.cuda.synchronize() becomes an if/else block (a whole statement) or a
# conditional expression (a value) that calls torch.mps.synchronize() where
# MPS is available and the original call everywhere else; the default target
# (>= 1.12) reaches below 2.7, so torch.accelerator is not used.  Here, on the
# CPU, the original and the fixed script must raise the same error at their
# first synchronize (`first_sync`: AssertionError "Torch not compiled with
# CUDA enabled" on a torch without CUDA).  To have results past that point,
# the script then puts stand-ins in place of torch.cuda.synchronize and of
# torch.mps (which torch 1.13 does not have) that record each call in
# `calls`.  What must match here: the calls, in order, their devices, and
# every value computed between them.  Where MPS is available (the on-mps
# lines) the fixed script waits on MPS instead at every fixed call, and the
# call that passes a device (a manual fix) is left as it was.  `first_sync`
# is not compared there: on a Mac the original raises AssertionError, and the
# fixed one calls torch.mps.synchronize(), which torch 1.13 lacks
# (AttributeError) and torch >= 2.0 has.
# semantic: fixes MPS008=5
# semantic: manual MPS008=1
# semantic: on-mps calls = ["mps", "mps", "mps", "mps", "mps", "mps", "cuda:0"]
# semantic: on-mps-ignore first_sync
import time
import types

import torch
import torch as th

torch.manual_seed(0)
x = torch.randn(8, 8)

# what the code that synchronizes does here, before the stand-ins
try:
    torch.cuda.synchronize()
    first_sync = "returned"
except (AssertionError, RuntimeError, AttributeError) as _e:
    first_sync = type(_e).__name__

calls = []


def _cuda_sync(device=None):
    calls.append("cuda" if device is None else "cuda:%s" % device)


def _mps_sync():
    calls.append("mps")


torch.cuda.synchronize = _cuda_sync
torch.mps = types.SimpleNamespace(synchronize=_mps_sync)


def timed(fn, arg):
    torch.cuda.synchronize()
    _start = time.perf_counter()
    out = fn(arg)
    torch.cuda.synchronize()  # wait for the kernels
    return out


product = timed(lambda t: t @ t, x)
summed = timed(torch.sum, x)
if product.sum() > -1e9: th.cuda.synchronize()
_sync = lambda: torch.cuda.synchronize()
waited = _sync()
torch.cuda.synchronize(0)
