import torch as th
from torch.utils.data import DataLoader as DL

# mpsfix: ignore[MPS006]
a = x.to("mps", non_blocking=True)
b = y.to("mps", non_blocking=True)  # noqa: MPS006
c = DL(ds, pin_memory=True)  # noqa
d = th.device("cuda" if th.cuda.is_available() else "cpu")
e = DL(ds, batch_size=4,
       pin_memory=True,
       )
f = z.to(th.device("mps"), non_blocking=True).to("mps", non_blocking=True)
