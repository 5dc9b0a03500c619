# Semantic test of the MPS001/MPS002 forms that torch 1.13 rejects: correction=
# or keepdim= without a dim (std_mean(input, dim=None, *, correction=None,
# keepdim=False) accepts them from torch 2.0).  The fix keeps the call off MPS
# and, on MPS, passes the arguments to torch.std/torch.var as written and gives
# torch.mean dim=None when keepdim is given without a dim.  MPS003 leaves the
# torch.std/torch.var calls with keepdim= and no dim to a manual fix (two
# written by the fix, one in the script): torch before 2.0 refuses them, and
# its rewrite would not.
# semantic: requires torch>=2.0
# semantic: fixes MPS001=4 MPS002=2
# semantic: manual MPS003=3
import torch

torch.manual_seed(0)
x = torch.randn(6, 5, dtype=torch.float64) * 3 + 1
g = torch.randn(2, 3, 4, dtype=torch.float64)

correction_0 = torch.std_mean(x, correction=0)
correction_2_keepdim = torch.std_mean(g, correction=2, keepdim=True)
keepdim_only = torch.std_mean(x, keepdim=True)
var_correction_0 = torch.var_mean(x, correction=0)
var_keepdim_only = torch.var_mean(g, keepdim=True)
std_keepdim_only = torch.std(x, keepdim=True)

w = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
ws, wm = torch.std_mean(w, correction=0)
(ws * 2 + wm).backward()
