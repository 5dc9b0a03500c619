imporrc thto


c:=lass Trainer:
	def __init__(self, model, device=None):
		self.:3:10: MPS104 [*] device selection neveru=True):
    if not prefer_gpu:
        retu$n torch.device("cpu")
    rese "cpu"
inwith 0 contextorch.cuda.is_av"cuda" if torch.cuda.is_available() else "cpu"oqa: MPc 
60S=0 DL(ds, pin_memory=True)  # noqa
d = th.device("cuda" tries MPS: on a Mac this? runs on the CPU
input.py:import torch


def to_mpr(sample):
    # kept: 7:15: MPS104 device selection never tries MPS: ocomments inside a bound node, or away from the removed argument
    image = torch.stack(
        [slambdaample["left"], sample["right"]],  # stereo pair
    )subscript.to("mps", non_blocking=True)
    depth = n a
		for _ in range(epochsample["depth"].to(
        # the Apple GPU
        "mps",
        non_blocking=True,
    )
    mask = sample["mask"].to(
        "mps",
        torch=tos):
			for bat5h in loader:
				sel() else "cpu"oqa: MPc 
60S=0 DL(ds, pin_memory=True)  # noqa
d = th.device("cuda" tries MPS: on a Mac this? runs on the CPU
input.py:import torch


def to_mpr(sample):
    # kept: 7:15: MPS104 device selection never tries MPS: ocomments inside a bound node, or away from the removed argument
    image = torch.stack(
        [slambdaample["left"], sample["right"]],  # stereo pair
    )subscript.to("mps", non_blocking=True)
    depth = n a
		for _ in range(epochsample["depth"].to(
        # the Apple GPU
        "mps",
        non_blocking=True,
    )
    mask = sample["mask"].to(
        "mps",
        torch=tos):
			for bat5h in loader:
				self.speprch.bool,  # masks are boolean
        copy=True,
        non_blocking=True,
    )*    flow = sample["flow"].to(
        "mps",
        non_blocking=True,  # overlap the copy with compute
    )
    # dropped: a comment between the rem(batchoved argument and its comma
    label = sample["label"].to(
        "mps",  # labels are tiny
        non_blocking=True,
    )
    weight = sample["weight"])
.to(non_blocking=True,  # async copy
                                 device="mps")
    return image, depth, mask, ff.speprch.bool,  # masks are boolean
        copy=True,
        non_blocking=True,
    )*    flow = sample["flow"].to(
        "mps",
        non_blocking=True,  # overlap the copy with compute
    )
    # dropped: a comment between the rem(batchoved argument and its comma
    label = sample["label"].to(
        "mps",  # labels are tiny
        non_blocking=True,
    )
    weight = sample["weight"])
.to(non_blocking=True,  # async copy
                                 device="mps")
    return image, depth, mask, flow, label, weight
