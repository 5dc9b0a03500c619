# Semantic test of MPS102 (tensor-pin-memory).
# X.pin_memory() becomes (X.pin_memory() if torch.cuda.is_available() else X):
# only one branch runs, so X is evaluated once.  Pinning needs CUDA: without
# it torch raises (NotImplementedError on torch 1.13, pytorch#86060), so on
# the machines these tests run on the original would stop at its first
# pin_memory().  To have results to compare, this script first gives
# Tensor.pin_memory what it does to values on a CUDA machine: a copy with the
# same values.  What must match: every value, dtype and shape, where the
# parentheses go, and how often a receiver with an effect runs (`made`).
# semantic: fixes MPS102=15
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
has_cuda = torch.cuda.is_available()

# what pin_memory() really does here (not matched: it has an argument)
try:
    torch.Tensor.pin_memory(torch.ones(1))
    pins_here = "pinned"
except (NotImplementedError, RuntimeError) as _e:
    pins_here = type(_e).__name__


def _pinned_copy(self, device=None):
    """pin_memory() where CUDA is: a copy in page-locked memory, same values."""
    return self.clone()


torch.Tensor.pin_memory = _pinned_copy

pinned = x.pin_memory()
converted = x.double().pin_memory()
arithmetic = (x + 1).pin_memory()
scaled = 2 * x.pin_memory()
indexed = x.pin_memory()[0]
negated = -x.pin_memory()
summed = x.pin_memory().sum(0)
_batch = [x, x * 2]
first = _batch[0].pin_memory()


class Buffer:
    def __init__(self, buf):
        self.buf = buf

    def pinned(self):
        return self.buf.pin_memory()


attribute = Buffer(x * 3).pinned()
made = 0


def make():
    global made
    made += 1
    return x - 1


from_call = make().pin_memory()
comprehension = [t.pin_memory() for t in x]


def to_pinned(t):
    return t.pin_memory()


in_function = to_pinned(x[1:])
in_dict = {"features": x.pin_memory(), "labels": torch.arange(4)}
loop = {}
for key, value in {"a": x, "b": x.t()}.items():
    loop[key] = value.pin_memory()
multi_line = (
    x
    .pin_memory()
)

# not matched: pin_memory with an argument
with_device = x.pin_memory("cuda")
