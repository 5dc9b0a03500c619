# Semantic test of MPS006, MPS007 and MPS004 with a device held in a variable
# (issue 19): the fixes change what is asked of torch only where the device
# is MPS.
#   MPS006: x.to(D, non_blocking=True) gets non_blocking=not str(D).startswith("mps")
#   MPS007: torch.autocast(D, dtype=torch.float16, enabled=E) gets
#           enabled=D != "mps" and E (or enabled=D != "mps")
#   MPS004: torch.amp.GradScaler(D, enabled=E) the same, str(D) for a device
# Torch here runs on the CPU (1.13: no torch.amp.GradScaler, no MPS), so the
# script records what each call is asked for: Tensor.to, torch.autocast and
# the scaler are wrapped by recorders that note their device and their
# non_blocking / enabled arguments, then do the work on the CPU (a disabled
# autocast, a pass-through scaler).  Where MPS is not available the fixed
# script must ask for exactly what the original asked for (`copies`,
# `autocasts`, `scalers`) and compute the same losses and gradients.  Where
# MPS is available (is_available patched, the on-mps lines) the device
# becomes "mps", and the fixed script asks for blocking copies, autocast off
# and disabled scalers, and computes the same values.
# semantic: unsafe
# semantic: target-torch 2.5
# semantic: fixes MPS004=2 MPS006=3 MPS007=3
# semantic: on-mps copies = [("mps", False), ("mps", False), ("mps", False)] * 2
# semantic: on-mps autocasts = [("mps", "torch.float16", False), ("mps", "torch.float16", False), ("mps", "torch.float16", False)] * 2
# semantic: on-mps scalers = [("mps", False), ("mps", False)]
import torch

torch.manual_seed(0)

copies = []
autocasts = []
scalers = []
_real_to = torch.Tensor.to


def _to(self, *args, **kwargs):
    """Records (device, non_blocking) and copies to the CPU instead of MPS."""
    dev = kwargs.get("device", args[0] if args else None)
    copies.append((str(dev), kwargs.get("non_blocking")))
    if str(dev).startswith("mps"):
        if "device" in kwargs:
            kwargs["device"] = "cpu"
        else:
            args = ("cpu",) + args[1:]
    return _real_to(self, *args, **kwargs)


class _Autocast:
    """Records (device_type, dtype, enabled); computes in the default precision."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        autocasts.append((device_type, str(dtype), enabled))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Scaler:
    """Records (device, enabled); passes scale and step through, as a disabled
    scaler does (and as an enabled one does with a scale of 1)."""

    def __init__(self, device="cuda", init_scale=1.0, enabled=True):
        scalers.append((str(device), enabled))

    def scale(self, loss):
        return loss

    def step(self, optimizer):
        optimizer.step()

    def update(self):
        pass


torch.Tensor.to = _to
torch.autocast = _Autocast
torch.amp.autocast = _Autocast
torch.amp.GradScaler = _Scaler
torch.GradScaler = _Scaler

# the device the program runs on: "mps" only where MPS is available
device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
device_type = device.type
use_amp = True
force_amp = False


class _Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 2)
        self.norm = torch.nn.BatchNorm1d(2)

    def forward(self, x):
        return self.norm(self.lin(x))


_model = _Model()
_opt = torch.optim.SGD(_model.parameters(), lr=0.1)
_scaler = torch.amp.GradScaler(device_type, enabled=use_amp)
_scaler_of_device = torch.GradScaler(device)
losses = []
for step in range(2):
    images = torch.randn(8, 4)
    labels = torch.randint(0, 2, (8,))
    images = images.to(device, non_blocking=True)
    labels = labels.to(device=device, non_blocking=True)
    weights = torch.ones(8).to(device, dtype=torch.float32, non_blocking=True)
    _opt.zero_grad()
    with torch.autocast(device_type=device.type, dtype=torch.float16, enabled=use_amp):
        out = _model(images)
    with torch.autocast(device_type, dtype=torch.half):
        out = out * 1.0
    with torch.amp.autocast(device_type=device_type, dtype=torch.float16, enabled=use_amp or force_amp):
        loss = (torch.nn.functional.cross_entropy(out, labels, reduction="none") * weights).mean()
    _scaler.scale(loss).backward()
    _scaler.step(_opt)
    _scaler.update()
    losses.append(loss.detach())

weight = _model.lin.weight.detach().clone()
bias = _model.lin.bias.detach().clone()
running_mean = _model.norm.running_mean.clone()
