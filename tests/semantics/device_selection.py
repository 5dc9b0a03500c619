# Semantic test of MPS104 (device-selection-skips-mps), an unsafe fix.
# "cuda" if torch.cuda.is_available() else "cpu" gains MPS as the second
# choice.  On a machine with neither CUDA nor MPS, like the ones the tests
# run on, the choice must stay "cpu" (and "cuda" where there is CUDA): the
# device strings, devices and tensors made on them must be the same.  Where
# MPS is available (is_available patched, the on-mps lines) every rewritten
# choice says "mps"; the tensor is then made on the CPU (there is no MPS
# device here) and the device it was asked for is recorded (`asked_for`).
# semantic: unsafe
# semantic: fixes MPS104=11
# semantic: manual MPS104=1
# semantic: on-mps device = "mps"
# semantic: on-mps single_quotes = "mps"
# semantic: on-mps numbered = torch.device("mps")
# semantic: on-mps aliased = torch.device("mps")
# semantic: on-mps multi_line = torch.device("mps")
# semantic: on-mps default_argument = "mps"
# semantic: on-mps asked_for = ["mps"]
# semantic: on-mps in_comprehension = ["mps", "mps"]
# semantic: on-mps as_string = "MPS"
# semantic: on-mps both_devices = torch.device("mps")
# semantic: on-mps both_devices_numbered = torch.device("mps")
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
asked_for = []


def _place(device):
    """Where a tensor goes: the device asked for, recorded; "mps" becomes the
    CPU (with is_available patched there is still no MPS device)."""
    asked_for.append(device)
    return "cpu" if device == "mps" else device


ones = torch.ones(3, device=_place("cuda" if torch.cuda.is_available() else "cpu")) * 2
in_comprehension = ["cuda" if torch.cuda.is_available() else "cpu" for _ in range(2)]
as_string = str("cuda" if torch.cuda.is_available() else "cpu").upper()

# a torch.device on each side
both_devices = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
both_devices_numbered = th.device('cuda:0') if th.cuda.is_available() else th.device('cpu')

# a comment inside the expression would be lost: needs a manual fix
commented = ("cuda"  # the GPU when there is one
             if torch.cuda.is_available() else "cpu")

# not matched: other conditions and devices
other_condition = "cuda" if has_cuda and not has_mps else "cpu"
other_device = "cuda:1" if torch.cuda.is_available() else "cpu"
already_mps = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
