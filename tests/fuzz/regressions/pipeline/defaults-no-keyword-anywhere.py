import torch


def f(x, device="cuda"):
    return x.to(device)


f(1, "cpu")
