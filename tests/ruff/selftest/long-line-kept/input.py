"""Loads the data."""
import os

import torch


def loader(data, root):
    # the loader pins memory for CUDA; the path is where the download of the data set is kept
    path = os.path.join(root, "data")
    return torch.utils.data.DataLoader(data, batch_size=64, pin_memory=True), path
