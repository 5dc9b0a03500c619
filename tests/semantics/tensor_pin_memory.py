# Semantic test of MPS102 (tensor-pin-memory).
# X.pin_memory() becomes (X if torch.backends.mps.is_available() else
# X.pin_memory()): only one branch runs, so X is evaluated once; a call that is
# a whole statement becomes an `if not torch.backends.mps.is_available():`
# block around it.  Where MPS is not available the same call runs, so here,
# without CUDA, the original and the fixed script must raise the same error
# at their first pin_memory() (NotImplementedError on torch 1.13,
# pytorch#86060; `unpinnable`, `unpinnable_statement`).  To have results to
# compare past that point, the script then gives Tensor.pin_memory what it
# does to values on a CUDA machine (a copy with the same values) and counts
# the calls (`pin_calls`); batch and model objects count their own
# (`ema_pins`).  What must match: every value, dtype and shape, where the
# parentheses go, how often a receiver with an effect runs (`made`), and how
# often pinning is attempted.  Where MPS is available (the on-mps lines) no
# pinning is attempted at all, nothing raises, and the values are the same.
# The statement that shares its line with another (`;`) needs a manual fix.
# An instance of the script's own class is not a tensor (`tensor: X`): its
# pin_memory() is not matched and runs where MPS is available as before
# (`own_pins`), while the tensor calls inside that method are fixed.
# semantic: fixes MPS102=23
# semantic: manual MPS102=1
# semantic: on-mps unpinnable = "returned"
# semantic: on-mps unpinnable_statement = "returned"
# semantic: on-mps pin_calls = 0
# semantic: on-mps ema_pins = 0
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


# what the code that pins does here, before pin_memory is replaced
try:
    _first_pinned = x.pin_memory()
    unpinnable = "returned"
except (NotImplementedError, RuntimeError) as _e:
    unpinnable = type(_e).__name__
try:
    x.pin_memory()
    unpinnable_statement = "returned"
except (NotImplementedError, RuntimeError) as _e:
    unpinnable_statement = type(_e).__name__

pin_calls = 0


def _pinned_copy(self, device=None):
    """pin_memory() where CUDA is: a copy in page-locked memory, same values."""
    global pin_calls
    if device is None:
        pin_calls += 1
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

# calls made for their effect: whole statements, on lines of their own or
# as the block of an `if` on its line, indented with spaces or tabs
class EMA:
    """An EMA of weights that pins its own buffers (as diffusers' EMAModel)."""

    def __init__(self, weights):
        self.weights = weights
        self.pinned = 0

    def pin_memory(self):
        self.pinned += 1
        self.weights = [w.pin_memory() for w in self.weights]


def make_ema(weights):
    return EMA(weights)


# through a function: the receiver may be a tensor, so it is matched
_ema = make_ema([x, x * 3])
_ema.pin_memory()
_ema.pin_memory()  # offload the EMA weights to the host
if has_cuda or _ema.weights: _ema.pin_memory()
for _step in range(2):
    if _step:
        _ema.pin_memory()


def offload(model):
	model.pin_memory()  # a function indented with a tab
	return model.weights


offloaded = offload(_ema)
ema_pins = _ema.pinned
ema_weights = _ema.weights
# a statement that shares its line with another: left for a manual fix, so
# it pins (and raises) where MPS is available as before
_left = make_ema([x])
_skip = 0; _left.pin_memory()
left_pins = _left.pinned
# not matched (`tensor: X`): an instance of the script's own class, whose
# pin_memory() is that class's method, pins where MPS is available as before
_own = EMA([x * 5])
_own.pin_memory()
own_pins = _own.pinned

# not matched: pin_memory with an argument
with_device = x.pin_memory("cuda")
