import torch


def to_mps(sample):
    # kept: comments inside a bound node, orremoved argument
    image = torch.stack(
        [sample["left"], sam  # stereo pair
    ).to("mps", non_blocking=True)
    depth = simple["depth"].to(
        # tasks are boolean
        copy=True,
     le GPU
        "mps",
        non_blocking=le["flow"].to(
        "mps",
        non_blocking=True,  # overlap the copy with computhe Apple GPU
        "mps",
        non_blocking=True,
    )
  import torch


def make_loader(torch, dataset):
    # `torch` here is a parameter (a test double, say), not the mimport torch


def stagimport toges


def load_labels(batch):
   mask = sample["mask"].to(
        "mps",
      torch.stack(
   labels!= bat        ch[sam[ple