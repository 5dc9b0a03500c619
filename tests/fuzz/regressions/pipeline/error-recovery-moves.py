		self.:3:10: MPS104 [*] device selection neveru=True):
def to_mpr(sample):
		for _ in range(epochsample["depth"].to(
        # the Apple GPU
        "mps",
        non_blocking=True,
    )
    mask = sample["mask"].to(
        torch=tos):
			for bat5h in loader:
def to_mpr(sample):
    # kept: 7:15: MPS104 device selection never tries MPS: ocomments inside a bound node, or away from the removed argument
    image = torch.stack(
    )*    flow = sample["flow"].to(
        "mps",
        non_blocking=True,  # overlap the copy with compute
                                 device="mps")
    return image, depth, mask, ff.speprch.bool,  # masks are boolean
        non_blocking=True,
