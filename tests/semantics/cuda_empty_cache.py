# Semantic test of MPS105 (cuda-empty-cache), applied with --unsafe-fixes:
# the default target (>= 1.12) reaches below torch 2.0, where torch.mps is
# missing, so the fix is unsafe there.
# torch.cuda.empty_cache() becomes an if/else block (a whole statement) or a
# conditional expression (a value) that calls torch.mps.empty_cache() where
# MPS is available and the original call everywhere else.  Here, on the CPU,
# the original call returns None and does nothing (CUDA never started):
# `first_release` must be the same in both.  The script then puts stand-ins
# in place of torch.cuda.empty_cache and of torch.mps (which torch 1.13 does
# not have) that record each call in `calls`.  What must match here: the
# calls in order, the values returned, and the tensors computed between them.
# Where MPS is available (the on-mps lines) the fixed script releases the MPS
# cache instead at every call; `first_release` is not compared there (the
# fixed script calls torch.mps.empty_cache(), missing from torch 1.13).
# semantic: unsafe
# semantic: fixes MPS105=4
# semantic: on-mps calls = ["mps", "mps", "mps", "mps"]
# semantic: on-mps-ignore first_release
import gc
import types

import torch

torch.manual_seed(0)
x = torch.randn(16, 4)

# what the call does here, before the stand-ins
try:
    first_release = torch.cuda.empty_cache()
except (AssertionError, RuntimeError, AttributeError) as _e:
    first_release = type(_e).__name__

calls = []


def _cuda_empty():
    calls.append("cuda")


def _mps_empty():
    calls.append("mps")


torch.cuda.empty_cache = _cuda_empty
torch.mps = types.SimpleNamespace(empty_cache=_mps_empty)


def stage(t):
    y = (t * 2).sum(0)
    gc.collect()
    torch.cuda.empty_cache()
    return y


first = stage(x)
second = stage(x + 1)


def release():
    return torch.cuda.empty_cache()


released = release()
for _i in range(1):
	torch.cuda.empty_cache()  # a block indented with a tab
