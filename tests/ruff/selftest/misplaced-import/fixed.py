"""Loads the data."""
import os

import torch
import contextlib


def loader(data, root):
    path = os.path.join(root, "data")
    with contextlib.suppress(OSError):
        os.makedirs(path)
    return torch.utils.data.DataLoader(data, batch_size=64, pin_memory=True), path
