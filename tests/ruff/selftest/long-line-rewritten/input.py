"""Loads the data."""
import os

import torch


def loader(data, root):
    path = os.path.join(root, "data")
    return torch.utils.data.DataLoader(data, batch_size=64, shuffle=True, num_workers=8, pin_memory=True), path
