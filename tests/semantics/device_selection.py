# Semantic test of MPS104 (device-selection-skips-mps), an unsafe fix.
# "cuda" if torch.cuda.is_available() else "cpu" gains MPS as the second
# choice.  On a machine with neither CUDA nor MPS, like the ones the tests
# run on, the choice must stay "cpu" (and "cuda" where there is CUDA): the
# device strings, devices and tensors made on them must be the same.
# semantic: unsafe
# semantic: fixes MPS104=9
# semantic: manual MPS104=1
import torch
import torch as th

# what the fixed code tests: neither is true here, so both versions say "cpu"
has_cuda = torch.cuda.is_available()
has_mps = torch.backends.mps.is_available()

device = "cuda" if torch.cuda.is_available() else "cpu"
single_quotes = 'cuda' if torch.cuda.is_available() else 'cpu'
numbered = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')
aliased = th.device("cuda" if th.cuda.is_available() else "cpu")
multi_line = torch.device(
    "cuda"
    if torch.cuda.is_available()
    else "cpu"
)


def load(map_location="cuda" if torch.cuda.is_available() else "cpu"):
    return map_location


default_argument = load()
ones = torch.ones(3, device="cuda" if torch.cuda.is_available() else "cpu") * 2
in_comprehension = ["cuda" if torch.cuda.is_available() else "cpu" for _ in range(2)]
as_string = str("cuda" if torch.cuda.is_available() else "cpu").upper()

# a comment inside the expression would be lost: needs a manual fix
commented = ("cuda"  # the GPU when there is one
             if torch.cuda.is_available() else "cpu")

# not matched: other conditions and devices
other_condition = "cuda" if has_cuda and not has_mps else "cpu"
other_device = "cuda:1" if torch.cuda.is_available() else "cpu"
already_mps = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
