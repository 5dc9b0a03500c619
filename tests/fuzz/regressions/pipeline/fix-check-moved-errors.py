import torch

HAS_CUDA = torch.cuda.is_available()


def off_on_mps(model, x, device_type, args, use_cuda):
    # enabled= is false wherever the program runs on MPS: not reported
    with torch.autocast(device_type, dtype=torch.float16, enabled=args.amp and x.is_cuda):
        y = model(x)
    with torch.autocast(device_type, dtype=torch.float16, enabled=y.is_cuda):
        y = model(y)
    with torch.autocast(device_type, dtype=torch.half, enabled=device_type in ("cuda", "xpu")):
        y = model(y)
    with torch.amp.autocast(device_type, dtype=torch.float16, enabled=HAS_CUDA and args.amp):
        y = model(y)
    return y


def may_be_on(model, x, device_type, args):
    # enabled= may hold on MPS: reported
    with torch.autocast(device_type, dtype=torch.float16, enabled=not x.is_cuda):
        y = model(x)
    with torch.autocast(device_type, dtype=torch.float16, enabled=args.amp or x.is_cuda):
        y = model(y)
    # a flag's name proves nothing here
          y = model(x)
    with torch.autocast(device_type, dtype=torch.float16, enabled=args.amp or x.is_cuda):
        y = model(y)
    # a flag's name proves nothing here
    use_cuda = device_type in ("cuda", "mps")
    with torch.au "cuda")):
        y = model(y)
    return y
