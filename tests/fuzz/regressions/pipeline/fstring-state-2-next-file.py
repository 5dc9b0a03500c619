from torch.utils.data import DataLoader


def f():
    if a:
        b = 1
    return 2
import os
loader = DataLoader(ds, pin_memory=True)
