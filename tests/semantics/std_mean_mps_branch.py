# Semantic test of the branch MPS001 (std-mean) and MPS002 (var-mean) take on
# MPS.  The fix keeps torch.std_mean(...) where its input is not on MPS (the
# other scripts check that it is then bit for bit what it was) and splits it
# into (torch.std(ARGS), torch.mean(INPUT, dim=DIM, keepdim=KEEPDIM)) where
# it is.  No MPS device is needed: the inputs here are CPU tensors of a
# subclass whose .device says "mps", so the fixed script takes the split
# branch and computes it on the CPU, where std_mean and var_mean (which the
# original keeps calling) run too.  std_mean computes its mean with another
# algorithm than torch.mean, so the two agree to the last bits, not bit for
# bit: floating-point values are compared within 64 epsilons (compared bit
# for bit, 16 of them differ: the split is what runs).  MPS003 then
# rewrites the split's torch.std/torch.var calls whose correction is the
# default 1 (torch 1.13 is targeted, below 2.0).
# semantic: allclose
# semantic: target-torch 1.13
# semantic: fixes MPS001=8 MPS002=8 MPS003=10
import torch


class _OnMps(torch.Tensor):
    """A CPU tensor that says it is on MPS."""

    @property
    def device(self):
        return torch.device("mps")


def _plain(r):
    """Results as plain tensors (the subclass is not saved across processes)."""
    return tuple(t.as_subclass(torch.Tensor) for t in r)


torch.manual_seed(0)
_x = torch.randn(6, 5, dtype=torch.float64).as_subclass(_OnMps) * 3 + 1
_g = torch.randn(4, 3, 5, 6, dtype=torch.float64).as_subclass(_OnMps)
_f = torch.randn(8, 7).as_subclass(_OnMps) * 2 - 0.5
taken = _x.device.type  # what the fixed script's test reads

s1 = _plain(torch.std_mean(_g, dim=(1, 2, 3), keepdim=True))
s2 = _plain(torch.std_mean(_x, 0, False))
s3 = _plain(torch.std_mean(_x, True))
s4 = _plain(torch.std_mean(_x))
s5 = _plain(torch.std_mean(_x, dim=1, correction=0))
s6 = _plain(torch.std_mean(_g, (1, -1), True, True))
s7 = _plain(torch.std_mean(_f, 1))
s8 = _plain(torch.std_mean(_x, dim=0, unbiased=False, keepdim=True))

v1 = _plain(torch.var_mean(_g, dim=(1, 2, 3), keepdim=True))
v2 = _plain(torch.var_mean(_x, 0, False))
v3 = _plain(torch.var_mean(_x, True))
v4 = _plain(torch.var_mean(_x))
v5 = _plain(torch.var_mean(_x, dim=1, correction=0))
v6 = _plain(torch.var_mean(_g, (1, -1), True, True))
v7 = _plain(torch.var_mean(_f, 1))
v8 = _plain(torch.var_mean(_x, dim=0, unbiased=False, keepdim=True))
