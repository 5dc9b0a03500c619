# Semantic test of MPS002 (var-mean), every overload and argument form: the
# same cases as std_mean.py, with var.  torch.var_mean(...) becomes
# `torch.var_mean(...) if INPUT.device.type != "mps" else (torch.var(ARGS),
# torch.mean(INPUT, dim=DIM, keepdim=KEEPDIM))`: var gets the original
# arguments byte for byte, mean the input, dim and keepdim.  On the CPU the
# call stays, so every value is the same bit for bit; std_mean_mps_branch.py
# runs the split.  The calls left for a manual fix are the exact_* variables.
# With every torch version targeted, MPS003 then rewrites the torch.var(...)
# the fix wrote whose correction is the default 1 (28 of them) into
# torch.var(X, dim=D, correction=1, keepdim=K); one of them has a comment
# between its arguments that such a rewrite would drop.
# semantic: fixes MPS002=41 MPS003=28
# semantic: manual MPS002=10 MPS003=1
import types

import torch
import torch as th
from torch import var_mean
from torch import var_mean as vm

torch.manual_seed(0)
x = torch.randn(6, 5, dtype=torch.float64) * 3 + 1
g = torch.randn(4, 3, 5, 6, dtype=torch.float64)
f = torch.randn(8, 7) * 2 - 0.5

# the dim overload: (input, dim, unbiased=True, keepdim=False)
s1, m1 = torch.var_mean(g, dim=(1, 2, 3), keepdim=True)
dim_unbiased = torch.var_mean(x, 0, False)
dim_int = torch.var_mean(x, 1)
dim_negative = torch.var_mean(g, -1)
dim_list = torch.var_mean(g, [0, 2])
all_positional = torch.var_mean(g, (1, -1), True, True)
all_keywords = torch.var_mean(x, dim=0, unbiased=False, keepdim=True)
keywords_reordered = torch.var_mean(x, keepdim=True, unbiased=True, dim=1)
dim_keepdim_keyword = torch.var_mean(g, 2, keepdim=True)
unbiased_keepdim_keyword = torch.var_mean(x, 0, True, keepdim=False)
dim_none_positional = torch.var_mean(x, None, False)
input_keyword = torch.var_mean(input=x, dim=1)

# the unbiased overload: (input, unbiased)
unbiased_true = torch.var_mean(x, True)
unbiased_false = torch.var_mean(x, False)
unbiased_keyword = torch.var_mean(x, unbiased=False)
no_arguments = torch.var_mean(x)

# the correction overload: (input, dim=None, *, correction=None, keepdim=False)
dim_none = torch.var_mean(x, dim=None)
dim_none_keepdim = torch.var_mean(x, dim=None, keepdim=True)
correction_0 = torch.var_mean(x, dim=1, correction=0)
correction_1 = torch.var_mean(x, dim=None, correction=1)
correction_2 = torch.var_mean(g, dim=(0, 1), correction=2, keepdim=True)
positional_dim_correction = torch.var_mean(x, 0, correction=0)

# float32
float32_dim = torch.var_mean(f, 1)
float32_all = torch.var_mean(f)

# the names the imports give it
aliased = th.var_mean(x, 1, keepdim=True)
imported = var_mean(x, dim=0)
renamed = vm(g, (2, 3), False)


# inputs that are attributes and subscripts (pure: evaluated twice by the fix)
class Stats:
    def __init__(self, w):
        self.w = w

    def compute(self):
        return torch.var_mean(self.w, dim=0)


attribute = Stats(x).compute()
_holder = types.SimpleNamespace(inner=types.SimpleNamespace(w=g))
attribute_chain = torch.var_mean(_holder.inner.w, (0, 1))
subscript = torch.var_mean(g[0], dim=-1, keepdim=True)


# inside functions, loops, comprehensions and lambdas
def normalize(t):
    s, m = torch.var_mean(t, dim=-1, keepdim=True)
    return (t - m) / s


normalized = normalize(g)
loop = []
for row in x:
    loop.append(torch.var_mean(row, 0))
comprehension = [torch.var_mean(t, dim=0) for t in g]
_pair = lambda t: torch.var_mean(t, 1, False)  # noqa: E731
from_lambda = _pair(x)

# where the tuple lands in an expression
first_times_two = torch.var_mean(x, 1)[0] * 2
as_list = list(torch.var_mean(x, dim=1))
starred = [*torch.var_mean(x, 0), x.sum()]
spread = torch.stack(torch.var_mean(f, dim=0))

# a call over several lines, with comments
commented = torch.var_mean(
    g,  # the batch
    dim=(2, 3),  # spatial dimensions
    keepdim=True,
)

# gradients through both results
w = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
ws, wm = torch.var_mean(w, dim=1, keepdim=True)
wb = torch.var_mean(w, 0, False)
(ws.sum() * 2 + (wm ** 2).sum() + wb[0].sum() - wb[1].mean()).backward()
w32 = torch.randn(3, 4, requires_grad=True)
w32_stats = torch.var_mean(w32)
(w32_stats[0] * 3 - w32_stats[1]).backward()

# left for a manual fix: not rewritten, so bit for bit the same
flag = False
exact_ambiguous_flag = torch.var_mean(x, flag)
d = 1
exact_ambiguous_dim = torch.var_mean(x, d)
made = 0


def make():
    global made
    made += 1
    return x * 2


exact_impure_call = torch.var_mean(make(), dim=0)
exact_method_input = torch.var_mean(x.abs(), 0)
exact_arithmetic_input = torch.var_mean(x * 2, 1)
exact_walrus = torch.var_mean((y := x + 1), 0)
exact_kwargs = torch.var_mean(x, **{"dim": 1})
exact_star_args = torch.var_mean(x, *(1,))
_a, _b = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.float64)
try:
    exact_out = torch.var_mean(x, 0, out=(_a, _b))
except TypeError:  # torch 1.13 has no out= for var_mean
    exact_out = "TypeError"


# not torch's var_mean: no finding
def shadowed(torch):
    return torch.var_mean(x, 0)


exact_shadowed = shadowed(types.SimpleNamespace(var_mean=lambda t, dim: (t.sum(), dim)))
