#!/usr/bin/python3
"""gen.py: a seeded synthetic corpus of ML-style Python for `make bench`.

    /usr/bin/python3 bench/gen.py --size-mb 70 --out build/bench/70 [--seed N]

writes OUT/corpus/ (a tree of repositories: packages with __init__.py,
models/, data/, engine/, utils/, configs/, scripts/, tests/, train.py ...)
and OUT/MANIFEST.json, the ground truth: every planted catalog pattern with
its file, line, family and spelling ("variant"), what mpsfix and the bench's
ast-grep rules are expected to report for that spelling, the files holding
near misses, and totals.  Standard library only; the same seed and size give
a byte-identical corpus (no set iteration, no hash(), no clock).

About 8% of the files carry planted patterns (PLANT_RATE); about 4% carry
near misses that contain catalog trigger words but must not be reported
(x.std(), torch.autocast("cuda"), DataLoader(pin_memory=False) ...); the
rest is clean code that contains none of the trigger words in TRIGGER_WORDS
(bench/run.py and `make bench-smoke` check that).
"""

import argparse
import hashlib
import json
import math
import os
import random
import string
import sys

DEFAULT_SEED = 20260507
PLANT_RATE = 0.085
NEARMISS_RATE = 0.03

# Words that a prefilter for the full default catalog may look for (one or
# more per rule: a file that matches a rule contains at least one of them).
# Clean files contain none of them.
TRIGGER_WORDS = [
    "std_mean", "var_mean", "std", "var", "GradScaler", "autocast", "non_blocking",
    "pin_memory", "is_available", "float64", "double", "svd", "svdvals", "eig", "eigh",
    "eigvals", "qr", "lstsq", "ctc_loss", "PYTORCH_ENABLE_MPS_FALLBACK", "mps",
]
# The words of the four patterns the ast-grep rules cover (grep -rlwE).
SEED_WORDS = ["std_mean", "GradScaler", "autocast", "pin_memory"]

# --------------------------------------------------------------------------
# vocabulary (no trigger word anywhere in here)

MODEL_PARTS = ["Residual", "Gated", "Sparse", "Deep", "Light", "Fast", "Dual", "Cross",
               "Multi", "Hier", "Cond", "Temporal", "Spatial", "Tiny", "Wide", "Dense",
               "Mobile", "Efficient", "Swin", "Point", "Graph", "Token", "Patch", "Pyramid"]
MODEL_KINDS = ["Net", "Encoder", "Decoder", "Classifier", "Backbone", "Block", "Head",
               "Transformer", "UNet", "Generator", "Discriminator", "Attention", "MLP",
               "Mixer", "Stem", "Neck", "Adapter", "Pooler", "Embedding", "Predictor"]
LAYER_NAMES = ["conv1", "conv2", "conv3", "proj", "fc", "head", "attn", "mlp", "norm1",
               "norm2", "dropout", "embed", "out_proj", "qkv", "gate", "up", "down",
               "shortcut", "stem", "pool", "classifier", "encoder", "decoder", "ffn"]
VARS = ["x", "h", "out", "feats", "hidden", "z", "y", "emb", "logits", "act", "inp",
        "tokens", "fmap", "residual", "latent", "q", "k", "v", "ctx", "state"]
DATA_NAMES = ["images", "labels", "targets", "inputs", "masks", "boxes", "batch",
              "sample", "points", "audio", "frames", "captions", "ids", "weights"]
DATASETS = ["ImageFolder", "Cifar", "Coco", "Imagenet", "Voc", "Cityscapes", "Librispeech",
            "Squad", "Wiki", "Kitti", "Ade", "Mnist", "Celeba", "Shapenet", "Openwebtext"]
FUNC_VERBS = ["build", "make", "compute", "load", "save", "init", "update", "prepare",
              "apply", "collect", "reduce", "merge", "split", "resize", "encode", "decode",
              "project", "normalize", "sample", "gather", "scatter", "warmup", "evaluate"]
FUNC_NOUNS = ["features", "weights", "logits", "loss", "metrics", "model", "optimizer",
              "scheduler", "checkpoint", "config", "batch", "dataset", "loader", "grid",
              "anchors", "embeddings", "mask", "targets", "predictions", "summary",
              "tokens", "vocab", "stats", "history", "buffer", "params", "layers"]
DIMS = ["32", "64", "128", "256", "384", "512", "768", "1024", "2048"]
OPTIMS = ["AdamW", "Adam", "SGD", "RMSprop", "Adagrad"]
ACTS = ["ReLU", "GELU", "SiLU", "Tanh", "LeakyReLU", "Mish"]
PKG_NAMES = ["vision", "nlp", "speech", "detect", "segment", "gen", "rl", "graph", "rec",
             "retrieval", "tabular", "multimodal", "diffusion", "lm", "tracking", "pose"]
ORGS = ["acme", "lab", "deepgroup", "opensci", "ml-team", "research", "uni", "studio",
        "core", "applied", "vision-lab", "ai-hub"]
PROJECTS = ["toolkit", "baselines", "zoo", "bench", "lib", "suite", "engine", "kit",
            "models", "trainer", "playground", "experiments", "pipeline", "core"]
COMMENTS = [
    "keep the shapes explicit: easier to debug",
    "TODO: move this into the config",
    "see the paper, section 3.2",
    "NOTE: the order matters for checkpoint compatibility",
    "cheap sanity check",
    "this mirrors the reference implementation",
    "régularisation légère (voir l'article)",
    "学习率调度: warmup then cosine",
    "Größe der Eingabe prüfen",
    "✓ checked against the original weights",
    "параметры по умолчанию",
    "avoid recomputation inside the loop",
    "FIXME: handle the empty batch",
    "the last layer is zero-initialised",
    "logits, not probabilities",
    "numerically stable version",
    "entrée: (B, C, H, W) → sortie: (B, N)",
    "損失関数の重み",
]

# --------------------------------------------------------------------------
# clean blocks: (imports, template).  Templates use $name placeholders
# (string.Template), so braces in f-strings stay as they are.

IMP_TORCH = "import torch"
IMP_NN = "import torch.nn as nn"
IMP_F = "import torch.nn.functional as F"
IMP_NP = "import numpy as np"
IMP_OS = "import os"
IMP_TIME = "import time"
IMP_LOG = "import logging"
IMP_MATH = "import math"
IMP_RANDOM = "import random"
IMP_ARGPARSE = "import argparse"
IMP_JSON = "import json"
IMP_PATH = "from pathlib import Path"
IMP_TYPING = "from typing import Any, Dict, List, Optional, Tuple"
IMP_DATACLASS = "from dataclasses import dataclass, field"
IMP_FUNCTOOLS = "import functools"
IMP_DS = "from torch.utils.data import Dataset"
IMP_DL = "from torch.utils.data import DataLoader"
IMP_OPTIM = "import torch.optim as optim"

CLEAN_BLOCKS = {
    "module": ([IMP_TORCH, IMP_NN, IMP_F, IMP_TYPING], '''
class $Cls(nn.Module):
    """$Cls: $adj block with $n_layers projections.

    Args:
        in_dim: input channels.
        hidden_dim: width of the hidden projections.
        p_drop: dropout probability.
    """

    def __init__(self, in_dim: int = $d1, hidden_dim: int = $d2, p_drop: float = 0.$pd) -> None:
        super().__init__()
        self.$l1 = nn.Linear(in_dim, hidden_dim)
        self.$l2 = nn.Linear(hidden_dim, hidden_dim)
        self.$l3 = nn.LayerNorm(hidden_dim)
        self.act = nn.$act()
        self.drop = nn.Dropout(p_drop)  # $comment
        self.$l4 = nn.Linear(hidden_dim, in_dim)

    def forward(self, $v: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        $w = self.act(self.$l1($v))
        $w = self.drop(self.$l3(self.$l2($w)))
        if mask is not None:
            $w = $w.masked_fill(~mask.unsqueeze(-1), 0.0)
        # $comment2
        return $v + self.$l4($w)
'''),
    "conv": ([IMP_TORCH, IMP_NN, IMP_F], '''
class $Cls(nn.Module):
    def __init__(self, in_ch=$c1, out_ch=$c2, stride=$stride):
        super().__init__()
        self.$l1 = nn.Conv2d(in_ch, out_ch, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.$l2 = nn.Conv2d(out_ch, out_ch, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_ch, out_ch, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(out_ch),
            )

    def forward(self, $v):
        $w = F.relu(self.bn1(self.$l1($v)))
        $w = self.bn2(self.$l2($w))
        $w = $w + self.shortcut($v)  # $comment
        return F.relu($w)
'''),
    "attention": ([IMP_TORCH, IMP_NN, IMP_MATH], '''
class $Cls(nn.Module):
    """Multi-head self attention ($comment)."""

    def __init__(self, dim: int = $d1, heads: int = $heads, p_attn: float = 0.$pd):
        super().__init__()
        assert dim % heads == 0, f"dim {dim} must be divisible by heads {heads}"
        self.heads = heads
        self.scale = 1.0 / math.sqrt(dim // heads)
        self.qkv = nn.Linear(dim, dim * 3)
        self.out_proj = nn.Linear(dim, dim)
        self.attn_drop = nn.Dropout(p_attn)

    def forward(self, $v: torch.Tensor) -> torch.Tensor:
        b, n, c = $v.shape
        qkv = self.qkv($v).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = self.attn_drop(attn.softmax(dim=-1))
        $w = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.out_proj($w)
'''),
    "dataset": ([IMP_TORCH, IMP_DS, IMP_PATH, IMP_TYPING, IMP_JSON], '''
class $Ds(Dataset):
    """Reads $dsname samples listed in an index file."""

    def __init__(self, root: str, split: str = "train", transform=None) -> None:
        self.root = Path(root)
        self.split = split
        self.transform = transform
        with open(self.root / f"{split}.json", encoding="utf-8") as fh:
            self.items: List[Dict[str, Any]] = json.load(fh)
        # $comment

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Tuple[torch.Tensor, int]:
        item = self.items[index]
        $d = torch.load(self.root / item["path"])
        if self.transform is not None:
            $d = self.transform($d)
        return $d, int(item["label"])
'''),
    "train_loop": ([IMP_TORCH, IMP_LOG, IMP_TIME, IMP_F], '''
def $fn(model, loader, optimizer, scheduler, epoch: int, device, log_every: int = $every):
    """One epoch of training; returns the mean loss."""
    model.train()
    total, seen = 0.0, 0
    start = time.perf_counter()
    for step, ($d, targets) in enumerate(loader):
        $d = $d.to(device)
        targets = targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        logits = model($d)
        loss = F.cross_entropy(logits, targets, label_smoothing=0.$pd)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=$clip)
        optimizer.step()
        scheduler.step()
        total += loss.item() * targets.size(0)
        seen += targets.size(0)
        if step % log_every == 0:
            elapsed = time.perf_counter() - start
            logging.info(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f} "
                         f"lr {scheduler.get_last_lr()[0]:.2e} ({elapsed:.1f}s)")
    # $comment
    return total / max(seen, 1)
'''),
    "evaluate": ([IMP_TORCH, IMP_TYPING], '''
@torch.no_grad()
def $fn(model, loader, device) -> Dict[str, float]:
    model.eval()
    correct, count, loss_sum = 0, 0, 0.0
    for $d, labels in loader:
        $d, labels = $d.to(device), labels.to(device)
        logits = model($d)
        loss_sum += torch.nn.functional.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(dim=-1) == labels).sum().item()
        count += labels.numel()
    # $comment
    return {"acc": correct / max(count, 1), "loss": loss_sum / max(count, 1)}
'''),
    "metrics": ([IMP_TORCH], '''
def $fn(pred: torch.Tensor, target: torch.Tensor, num_classes: int = $ncls, eps: float = 1e-$eps) -> torch.Tensor:
    """Mean intersection over union ($comment)."""
    pred = pred.argmax(dim=1) if pred.dim() == 4 else pred
    ious = []
    for cls in range(num_classes):
        p = pred == cls
        t = target == cls
        inter = (p & t).sum().float()
        union = (p | t).sum().float()
        ious.append((inter + eps) / (union + eps))
    return torch.stack(ious).mean()
'''),
    "argparse": ([IMP_ARGPARSE], '''
def $fn(argv=None):
    parser = argparse.ArgumentParser(description="$desc")
    parser.add_argument("--data", type=str, default="data/$dsname", help="dataset root")
    parser.add_argument("--epochs", type=int, default=$epochs)
    parser.add_argument("--batch-size", type=int, default=$bs)
    parser.add_argument("--lr", type=float, default=$lr)
    parser.add_argument("--weight-decay", type=float, default=0.0$wd)
    parser.add_argument("--workers", type=int, default=$workers)
    parser.add_argument("--seed", type=int, default=$seed)
    parser.add_argument("--output", type=str, default="runs/$desc_slug")
    parser.add_argument("--resume", type=str, default="", help="checkpoint to resume from")
    parser.add_argument("--device", type=str, default="cpu")
    # $comment
    return parser.parse_args(argv)
'''),
    "meter": ([], '''
class $Cls:
    """Computes and stores the average and current value."""

    def __init__(self, name: str, fmt: str = ":f") -> None:
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self) -> None:
        self.val = 0.0
        self.avg = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val: float, n: int = 1) -> None:
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self) -> str:
        fmtstr = "{name} {val" + self.fmt + "} ({avg" + self.fmt + "})"
        return fmtstr.format(**self.__dict__)
'''),
    "seed": ([IMP_RANDOM, IMP_NP, IMP_TORCH, IMP_OS], '''
def $fn(seed: int = $seed, deterministic: bool = False) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    if deterministic:
        torch.use_deterministic_algorithms(True)  # $comment
'''),
    "decorator": ([IMP_FUNCTOOLS, IMP_TIME, IMP_LOG], '''
def $fn(label: str = "$desc_slug"):
    """Logs how long the wrapped function took."""

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                logging.getLogger(__name__).debug(f"{label}: {func.__name__} took {elapsed * 1000:.1f} ms")

        return wrapper

    return decorate
'''),
    "config": ([IMP_DATACLASS, IMP_TYPING], '''
@dataclass
class $Cls:
    """Hyper-parameters for $desc."""

    epochs: int = $epochs
    batch_size: int = $bs
    lr: float = $lr
    weight_decay: float = 0.0$wd
    hidden_dim: int = $d1
    num_layers: int = $heads
    dropout: float = 0.$pd
    milestones: List[int] = field(default_factory=lambda: [$m1, $m2])
    extra: Dict[str, Any] = field(default_factory=dict)

    def scaled_lr(self, world_size: int) -> float:
        return self.lr * self.batch_size * world_size / 256  # $comment
'''),
    "checkpoint": ([IMP_TORCH, IMP_OS, IMP_LOG, IMP_TYPING], '''
def $fn(model, optimizer, epoch: int, path: str, extra: Optional[Dict[str, Any]] = None) -> None:
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "epoch": epoch,
        "extra": extra or {},
    }
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)  # atomic on POSIX
    logging.info(f"saved checkpoint {path} (epoch {epoch})")


def $fn2(model, optimizer, path: str, map_location: str = "cpu") -> int:
    if not os.path.exists(path):
        return 0
    state = torch.load(path, map_location=map_location)
    model.load_state_dict(state["model"])
    if optimizer is not None and "optimizer" in state:
        optimizer.load_state_dict(state["optimizer"])
    return int(state.get("epoch", 0)) + 1
'''),
    "transform": ([IMP_TORCH, IMP_RANDOM, IMP_TYPING], '''
class $Cls:
    """Random crop and flip applied to (C, H, W) tensors."""

    def __init__(self, size: Tuple[int, int] = ($c1, $c1), p_flip: float = 0.5) -> None:
        self.size = size
        self.p_flip = p_flip

    def __call__(self, $d: torch.Tensor) -> torch.Tensor:
        _, h, w = $d.shape
        th_, tw = self.size
        top = random.randint(0, max(h - th_, 0))
        left = random.randint(0, max(w - tw, 0))
        $d = $d[:, top:top + th_, left:left + tw]
        if random.random() < self.p_flip:
            $d = torch.flip($d, dims=[2])
        return $d

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size}, p_flip={self.p_flip})"
'''),
    "scheduler": ([IMP_MATH, IMP_OPTIM], '''
def $fn(optimizer, warmup_steps: int = $every, total_steps: int = $total, min_ratio: float = 0.0$wd):
    def lr_lambda(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return min_ratio + (1 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))

    return optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
'''),
    "optimizer": ([IMP_TORCH, IMP_OPTIM], '''
def $fn(model, lr: float = $lr, weight_decay: float = 0.0$wd):
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        (no_decay if param.ndim <= 1 or name.endswith(".bias") else decay).append(param)
    groups = [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return optim.$opt(groups, lr=lr)  # $comment
'''),
    "loader": ([IMP_DL, IMP_TORCH], '''
def $fn(dataset, batch_size: int = $bs, workers: int = $workers, shuffle: bool = True):
    generator = torch.Generator()
    generator.manual_seed($seed)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=shuffle,
        num_workers=workers,
        drop_last=shuffle,
        generator=generator,
    )
'''),
    "loss": ([IMP_TORCH, IMP_NN, IMP_F], '''
class $Cls(nn.Module):
    """Focal loss (gamma=$gamma) on logits."""

    def __init__(self, gamma: float = $gamma, alpha: float = 0.25, reduction: str = "mean"):
        super().__init__()
        self.gamma = gamma
        self.alpha = alpha
        self.reduction = reduction

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        prob = logits.sigmoid()
        ce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
        p_t = prob * target + (1 - prob) * (1 - target)
        loss = ce * ((1 - p_t) ** self.gamma)
        loss = self.alpha * target * loss + (1 - self.alpha) * (1 - target) * loss
        if self.reduction == "mean":
            return loss.mean()
        return loss.sum() if self.reduction == "sum" else loss
'''),
    "stats": ([IMP_TORCH], '''
def $fn($v: torch.Tensor, dim: int = -1, eps: float = 1e-$eps) -> torch.Tensor:
    """Normalizes along dim by the mean and root mean square ($comment)."""
    center = torch.mean($v, dim=dim, keepdim=True)
    rms = torch.sqrt(torch.mean(($v - center) ** 2, dim=dim, keepdim=True) + eps)
    pin = center.abs().max()  # a name, not pinning
    return ($v - center) / rms, pin
'''),
    "comprehension": ([IMP_TORCH, IMP_TYPING], '''
def $fn(batch: List[Dict[str, torch.Tensor]], keys=("$k1", "$k2")) -> Dict[str, torch.Tensor]:
    out = {key: torch.stack([item[key] for item in batch]) for key in keys}
    lengths = [len(item["$k1"]) for item in batch if "$k1" in item]
    out["lengths"] = torch.tensor(lengths or [0])
    out["scale"] = max((lambda t: t.abs().max().item())(t) for t in out.values())
    return out
'''),
    "test": ([IMP_TORCH], '''
def test_${fn}_shape():
    torch.manual_seed($seed)
    $v = torch.randn($bs, $d1)
    layer = torch.nn.Linear($d1, $d2)
    out = layer($v)
    assert out.shape == ($bs, $d2)
    assert torch.isfinite(out).all()


def test_${fn}_grad():
    $v = torch.randn(4, $d1, requires_grad=True)
    layer = torch.nn.Linear($d1, 1)
    layer($v).sum().backward()
    assert $v.grad is not None and $v.grad.shape == $v.shape
'''),
}

# Blocks that use trigger words but that no rule may report (near misses).
NEARMISS_BLOCKS = [
    ([IMP_TORCH, IMP_NP], '''
def $fn($v: torch.Tensor, arr=None):
    """Summary statistics for logging (methods and NumPy, not torch functions)."""
    spread = $v.std(dim=0)
    scale = $v.var(dim=-1, unbiased=False)
    ref = np.std(arr) if arr is not None else 0.0
    return spread, scale, ref
'''),
    ([IMP_TORCH], '''
def $fn(seed: int = $seed) -> None:
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
'''),
    ([IMP_TORCH], '''
def $fn(model, $d, scaler=None):
    scaler = scaler or torch.cuda.amp.GradScaler()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model($d).mean()
    scaler.scale(loss).backward()
    return loss
'''),
    ([IMP_DL], '''
def $fn(dataset, batch_size: int = $bs):
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, pin_memory=False)
'''),
    ([IMP_TORCH], '''
def $fn(batch, device):
    # the copy goes to CUDA: overlapping it with host work is safe there
    return {key: value.to("cuda", non_blocking=True) for key, value in batch.items()}
'''),
    ([IMP_TORCH], '''
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def $fn($d: torch.Tensor, mean=IMAGENET_MEAN, std=IMAGENET_STD) -> torch.Tensor:
    m = torch.tensor(mean).view(-1, 1, 1)
    s = torch.tensor(std).view(-1, 1, 1)
    return ($d - m) / s
'''),
]

# --------------------------------------------------------------------------
# planted patterns.  Each variant: family, description, imports, template,
# the codes mpsfix reports (on the line marked with a leading '>'), the
# ast-grep rule id expected there (None: the bench's rule does not match).
# Templates are whole top-level definitions (MPS203's is a module statement).

VARIANTS = [
    # std_mean: MPS001 / ast-grep std-mean
    ("std_mean", "torch_positional", "torch.std_mean(x, dim)", [IMP_TORCH], '''
def $fn($v):
>    spread, center = torch.std_mean($v, $dim)
    return ($v - center) / (spread + 1e-$eps)
''', ["MPS001"], "std-mean"),
    ("std_mean", "torch_keywords_multiline", "torch.std_mean(...) over several lines, keywords", [IMP_TORCH], '''
def $fn(self, $v):
    # per-channel statistics
>    s, m = torch.std_mean(
        $v,
        dim=(0, 2, 3),
        keepdim=True,
    )
    return s, m
''', ["MPS001"], "std-mean"),
    ("std_mean", "alias_th", "th.std_mean under `import torch as th`", ["import torch as th"], '''
def $fn($v, correction: int = 1):
>    s, m = th.std_mean($v, 1, correction=correction)
    return m, s
''', ["MPS001"], None),
    ("std_mean", "from_import", "std_mean imported with `from torch import std_mean`", ["from torch import std_mean"], '''
def $fn($v):
>    return std_mean($v, 0)
''', ["MPS001"], None),
    ("std_mean", "in_comprehension", "torch.std_mean inside a list comprehension", [IMP_TORCH], '''
def $fn(groups):
>    stats = [torch.std_mean(g, dim=-1) for g in groups]
    return stats
''', ["MPS001"], "std-mean"),
    ("std_mean", "in_lambda", "torch.std_mean inside a lambda", [IMP_TORCH], '''
def $fn(tensors):
>    summarize = lambda t: torch.std_mean(t, dim=0, keepdim=True)
    return list(map(summarize, tensors))
''', ["MPS001"], "std-mean"),
    # GradScaler("mps"): MPS004 / ast-grep grad-scaler-mps
    ("grad_scaler", "amp_positional", 'torch.amp.GradScaler("mps")', [IMP_TORCH], '''
def $fn(cfg):
>    scaler = torch.amp.GradScaler("mps")
    return scaler
''', ["MPS004"], "grad-scaler-mps"),
    ("grad_scaler", "torch_device_keyword", 'torch.GradScaler(device="mps", init_scale=...)', [IMP_TORCH], '''
def $fn(cfg):
>    return torch.GradScaler(device="mps", init_scale=2.0**$gamma, enabled=cfg.amp)
''', ["MPS004"], "grad-scaler-mps"),
    ("grad_scaler", "from_amp_import", 'GradScaler("mps", ...) after `from torch.amp import GradScaler`, several lines',
     ["from torch.amp import GradScaler"], '''
def $fn():
>    scaler = GradScaler(
        'mps',
        growth_interval=$every,  # tuned
    )
    return scaler
''', ["MPS004"], "grad-scaler-mps"),
    ("grad_scaler", "alias_th", "th.amp.GradScaler('mps') under `import torch as th`", ["import torch as th"], '''
def $fn():
>    return th.amp.GradScaler('mps')
''', ["MPS004"], None),
    ("grad_scaler", "renamed_import", 'Scaler("mps") after `from torch.amp import GradScaler as Scaler`',
     ["from torch.amp import GradScaler as Scaler"], '''
def $fn():
>    return Scaler("mps")
''', ["MPS004"], None),
    # autocast("mps"): MPS005 (+ MPS007 with float16) / ast-grep autocast-mps
    ("autocast", "with_positional_fp16", 'with torch.autocast("mps", dtype=torch.float16)', [IMP_TORCH], '''
def $fn(model, $d):
>    with torch.autocast("mps", dtype=torch.float16):
        out = model($d)
    return out
''', ["MPS005", "MPS007"], "autocast-mps"),
    ("autocast", "amp_device_type_keyword", 'with torch.amp.autocast(device_type="mps")', [IMP_TORCH], '''
def $fn(model, $d):
>    with torch.amp.autocast(device_type="mps", dtype=torch.bfloat16):
        return model($d)
''', ["MPS005"], "autocast-mps"),
    ("autocast", "from_import", 'autocast("mps") after `from torch import autocast`', ["from torch import autocast"], '''
def $fn(model, $d):
>    with autocast("mps"):
        return model($d)
''', ["MPS005"], "autocast-mps"),
    ("autocast", "device_variable", "torch.autocast(device.type, ...): the device is a variable", [IMP_TORCH], '''
def $fn(model, $d, device):
>    with torch.autocast(device.type, dtype=torch.bfloat16):
        return model($d)
''', ["MPS005"], None),
    ("autocast", "alias_decorator", '@th.autocast("mps") as a decorator under `import torch as th`', ["import torch as th"], '''
>@th.autocast("mps")
def $fn($v):
    return $v * 2
''', ["MPS005"], None),
    # DataLoader(pin_memory=...): MPS101 / ast-grep dataloader-pin-memory
    ("dataloader_pin_memory", "qualified", "torch.utils.data.DataLoader(..., pin_memory=True)", [IMP_TORCH], '''
def $fn(train_set, batch_size=$bs):
>    return torch.utils.data.DataLoader(train_set, batch_size=batch_size, shuffle=True, pin_memory=True)
''', ["MPS101"], "dataloader-pin-memory"),
    ("dataloader_pin_memory", "imported_multiline", "DataLoader(...) imported from torch.utils.data, several lines, comments", [IMP_DL], '''
def $fn(dataset, workers=$workers):
>    loader = DataLoader(
        dataset,
        batch_size=$bs,  # fits in 16 GB
        num_workers=workers,
        pin_memory=True,  # faster host-to-GPU copies
    )
    return loader
''', ["MPS101"], "dataloader-pin-memory"),
    ("dataloader_pin_memory", "keyword_first", "DataLoader(pin_memory=True, dataset=...)", [IMP_DL], '''
def $fn(val_set):
>    return DataLoader(pin_memory=True, dataset=val_set, shuffle=False)
''', ["MPS101"], "dataloader-pin-memory"),
    ("dataloader_pin_memory", "module_alias", "data.DataLoader(...) after `from torch.utils import data`", ["from torch.utils import data"], '''
def $fn(ds):
>    return data.DataLoader(ds, batch_size=$bs, pin_memory=True)
''', ["MPS101"], "dataloader-pin-memory"),
    ("dataloader_pin_memory", "renamed_import", "DL(...) after `from torch.utils.data import DataLoader as DL`",
     ["from torch.utils.data import DataLoader as DL"], '''
def $fn(ds):
>    return DL(ds, pin_memory=True)
''', ["MPS101"], None),
    ("dataloader_pin_memory", "value_expression", "DataLoader(..., pin_memory=args.pin_memory): not the literal True", [IMP_TORCH], '''
def $fn(ds, args):
>    return torch.utils.data.DataLoader(ds, batch_size=args.batch_size, pin_memory=args.pin_memory)
''', ["MPS101"], None),
    ("dataloader_pin_memory", "shadowing_class", "DataLoader from another library (`from mylib import DataLoader`): not torch's",
     ["from mylib.loaders import DataLoader"], '''
def $fn(ds):
>    return DataLoader(ds, pin_memory=True)
''', [], "dataloader-pin-memory"),
    # the other catalog rules (mpsfix only)
    ("std_var", "std_default", "torch.std(x) without correction=", [IMP_TORCH], '''
def $fn($v):
>    return torch.std($v)
''', ["MPS003"], None),
    ("std_var", "var_dim", "torch.var(x, 1) without correction=", [IMP_TORCH], '''
def $fn($v):
>    return torch.var($v, 1, keepdim=True)
''', ["MPS003"], None),
    ("var_mean", "torch", "torch.var_mean(x, dim=...)", [IMP_TORCH], '''
def $fn($v):
>    v, m = torch.var_mean($v, dim=-1)
    return v, m
''', ["MPS002"], None),
    ("tensor_pin_memory", "method", "x.pin_memory()", [IMP_TORCH], '''
def $fn(batch):
>    batch = batch.pin_memory()
    return batch
''', ["MPS102"], None),
    ("device_selection", "cuda_else_cpu", '"cuda" if torch.cuda.is_available() else "cpu"', [IMP_TORCH], '''
def $fn():
>    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return device
''', ["MPS104"], None),
    ("non_blocking", "to_mps", 'x.to("mps", non_blocking=True)', [IMP_TORCH], '''
def $fn($d):
>    return $d.to("mps", non_blocking=True)
''', ["MPS006"], None),
    ("env_fallback", "after_import", "os.environ[\"PYTORCH_ENABLE_MPS_FALLBACK\"] after import torch", [IMP_OS, IMP_TORCH], '''
>os.environ["PYTORCH_ENABLE_MPS_FALLBACK"] = "1"
''', ["MPS203"], None),
]

# Why the two tools disagree on a spelling (printed next to measured counts).
WHY = {
    "alias_th": "ast-grep matches text shapes and does not resolve `import torch as th`; mpsfix resolves the alias",
    "from_import": "the bare name is bound by `from torch import ...`: mpsfix resolves it; a bare-name ast-grep pattern would also hit unrelated functions",
    "renamed_import": "the call uses a name bound by `import ... as ...`; ast-grep cannot follow the rename, mpsfix resolves it",
    "device_variable": "the bench's ast-grep rule asks for the literal \"mps\"; mpsfix's MPS005 reports any non-literal device type too (its fix guards it)",
    "alias_decorator": "autocast is reached through `th.` (import torch as th): ast-grep does not resolve the alias",
    "value_expression": "the bench's ast-grep rule asks for True; mpsfix's MPS101 reports any value that is not False and does not test cuda.is_available()",
    "shadowing_class": "ast-grep matches the name; mpsfix resolves the import and knows it is not torch's",
}

# Seed-pattern variants are planted more often than the others.
VARIANT_WEIGHTS = [4 if v[0] in ("std_mean", "grad_scaler", "autocast", "dataloader_pin_memory") else 2
                   for v in VARIANTS]

# --------------------------------------------------------------------------

FILE_ROLES = {
    "models": ["module", "conv", "attention", "loss", "module", "stats", "comprehension"],
    "data": ["dataset", "transform", "loader", "comprehension", "dataset"],
    "engine": ["train_loop", "evaluate", "optimizer", "scheduler", "checkpoint", "metrics"],
    "utils": ["meter", "seed", "decorator", "config", "checkpoint", "comprehension"],
    "script": ["argparse", "train_loop", "evaluate", "seed", "optimizer", "config"],
    "tests": ["test"],
    "metrics": ["metrics", "stats", "meter"],
}


def slug(text):
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")


class Gen:
    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.names = 0

    def pick(self, seq):
        return seq[int(self.rnd.random() * len(seq))]

    def ident(self):
        self.names += 1
        return f"{self.pick(FUNC_VERBS)}_{self.pick(FUNC_NOUNS)}"

    def params(self):
        r = self.rnd
        cls = self.pick(MODEL_PARTS) + self.pick(MODEL_KINDS)
        desc = f"{self.pick(MODEL_PARTS).lower()} {self.pick(FUNC_NOUNS)}"
        v, w = self.pick(VARS), self.pick(VARS)
        if v == w:
            w = "hidden_" + w
        return {
            "Cls": cls, "Ds": self.pick(DATASETS) + "Dataset", "dsname": self.pick(DATASETS).lower(),
            "fn": self.ident(), "fn2": self.ident(), "v": v, "w": w, "d": self.pick(DATA_NAMES),
            "l1": self.pick(LAYER_NAMES), "l2": self.pick(LAYER_NAMES) + "_2",
            "l3": "norm", "l4": self.pick(LAYER_NAMES) + "_out",
            "d1": self.pick(DIMS), "d2": self.pick(DIMS), "c1": self.pick(DIMS[:5]), "c2": self.pick(DIMS[:6]),
            "stride": self.pick(["1", "2"]), "heads": self.pick(["2", "4", "8", "12", "16"]),
            "pd": str(r.randint(0, 5)), "act": self.pick(ACTS), "adj": self.pick(MODEL_PARTS).lower(),
            "n_layers": str(r.randint(2, 6)), "comment": self.pick(COMMENTS), "comment2": self.pick(COMMENTS),
            "every": str(self.pick([10, 20, 50, 100, 200])), "clip": self.pick(["1.0", "5.0", "0.5"]),
            "ncls": str(r.randint(2, 200)), "eps": str(r.randint(5, 8)), "desc": desc, "desc_slug": slug(desc),
            "epochs": str(r.randint(1, 300)), "bs": str(self.pick([8, 16, 32, 64, 128, 256])),
            "lr": self.pick(["1e-3", "3e-4", "0.1", "5e-5", "2e-4"]), "wd": str(r.randint(1, 9)),
            "workers": str(r.randint(0, 16)), "seed": str(r.randint(0, 99999)),
            "m1": str(r.randint(10, 60)), "m2": str(r.randint(61, 120)), "opt": self.pick(OPTIMS),
            "total": str(r.randint(1000, 100000)), "gamma": str(r.randint(1, 16)),
            "k1": self.pick(DATA_NAMES), "k2": self.pick(DATA_NAMES) + "_aux",
            "dim": self.pick(["0", "-1", "1", "dim=0", "dim=-1", "dim=(1, 2)"]),
        }


_TEMPLATE_CACHE = {}


def render(template, params):
    t = _TEMPLATE_CACHE.get(template)
    if t is None:
        t = _TEMPLATE_CACHE[template] = string.Template(template)
    return t.substitute(params)


def file_lines(g):
    """Target line count: log-normal (median 250), a long tail to 20,000."""
    r = g.rnd.random()
    if r < 0.004:
        return g.rnd.randint(5000, 20000)
    n = int(math.exp(g.rnd.gauss(math.log(250), 0.9)))
    return max(10, min(n, 20000))


def bound_names(stmt):
    """The names an import statement binds: `import a.b` binds a,
    `import a as b` b, `from m import x, y as z` x and z."""
    if stmt.startswith("from "):
        names = stmt.split(" import ", 1)[1].split(",")
    else:
        names = [stmt[len("import "):]]
    out = []
    for n in names:
        n = n.strip()
        out.append(n.split(" as ")[1].strip() if " as " in n else n.split(".")[0])
    return out


def make_file(g, role, target_lines, plant, nearmiss, rel):
    """Returns (text, instances): instances are (line, variant index)."""
    imports = []          # statements, first-use order
    bound = {}            # name -> statement that binds it (to avoid clashes)
    body = []             # lines
    instances = []

    def add_imports(stmts):
        for s in stmts:
            for name in bound_names(s):
                if name in bound and bound[name] != s:
                    return False
        for s in stmts:
            for name in bound_names(s):
                bound[name] = s
            if s not in imports:
                imports.append(s)
        return True

    kinds = FILE_ROLES[role]
    blocks = []
    lines_so_far = 0
    while lines_so_far < target_lines:
        kind = g.pick(kinds)
        imps, tmpl = CLEAN_BLOCKS[kind]
        blocks.append(("clean", imps, tmpl))
        lines_so_far += tmpl.count("\n") + 1
    special = []
    if nearmiss:
        for _ in range(g.rnd.randint(1, 2)):
            special.append(("near",) + NEARMISS_BLOCKS[int(g.rnd.random() * len(NEARMISS_BLOCKS))])
    if plant:
        for _ in range(1 if g.rnd.random() < 0.7 else g.rnd.randint(2, 3)):
            idx = g.rnd.choices(range(len(VARIANTS)), weights=VARIANT_WEIGHTS)[0]
            special.append(("plant", idx))
    for item in special:
        blocks.insert(int(g.rnd.random() * (len(blocks) + 1)), item)

    # MPS203's statement is at module level after the imports: put it first.
    env = [b for b in blocks if b[0] == "plant" and VARIANTS[b[1]][0] == "env_fallback"]
    if env:
        blocks = [env[0]] + [b for b in blocks if b[0] != "plant" or VARIANTS[b[1]][0] != "env_fallback"]

    near_included = False
    for b in blocks:
        if b[0] == "clean" or b[0] == "near":
            if not add_imports(b[1]):
                continue
            near_included = near_included or b[0] == "near"
            text = render(b[2], g.params())
            body.append("")
            body.extend(text.strip("\n").split("\n"))
            body.append("")
        else:
            fam, var, desc, imps, tmpl, codes, ag = VARIANTS[b[1]]
            if not add_imports(imps):
                continue
            text = render(tmpl, g.params())
            body.append("")
            for line in text.strip("\n").split("\n"):
                if line.startswith(">"):
                    line = line[1:]
                    instances.append((len(body), b[1]))
                body.append(line)
            body.append("")

    # header: shebang, docstring, imports (standard library first); every
    # block starts with a blank line, so blocks are two blank lines apart
    header = []
    if role == "script" and g.rnd.random() < 0.5:
        header.append("#!/usr/bin/env python3")
    title = rel.rsplit("/", 1)[-1][:-3].replace("_", " ")
    header.append(f'"""{title}: {g.pick(COMMENTS)}."""')
    if g.rnd.random() < 0.3:
        header.append("from __future__ import annotations")
    if imports:
        header.append("")
        stdlib = [s for s in imports if s.split()[1].split(".")[0] in STDLIB]
        rest = [s for s in imports if s not in stdlib]
        header.extend(stdlib)
        if stdlib and rest:
            header.append("")
        header.extend(rest)
    header.append("")
    if role == "script":
        body.extend(["", 'if __name__ == "__main__":', "    main()"])
    off = len(header) + 1
    text = "\n".join(header + body).rstrip("\n") + "\n"
    return text, [(ln + off, idx) for ln, idx in instances], near_included


STDLIB = ("os", "time", "logging", "math", "random", "argparse", "json", "functools",
          "pathlib", "typing", "dataclasses")


def build_file(g, role, rel, plant, nearmiss):
    """Returns (text, planted instances as (line, variant index), whether a
    near miss was included)."""
    if rel.endswith("__init__.py"):
        return f'"""{rel.split("/")[-2]} package."""\n\n__all__ = []\n', [], False
    text, instances, near = make_file(g, role, file_lines(g), plant, nearmiss, rel)
    style = g.rnd.random()
    if style < 0.02:
        text = "\n".join(tabify(l) for l in text.split("\n"))
    elif style < 0.04:
        text = text.replace("\n", "\r\n")
    return text, instances, near


def tabify(line):
    n = len(line) - len(line.lstrip(" "))
    return "\t" * (n // 4) + " " * (n % 4) + line[n:]


REPO_LAYOUT = [
    # (relative path pattern, role)
    ("{pkg}/models/{name}.py", "models"),
    ("{pkg}/data/{name}.py", "data"),
    ("{pkg}/engine/{name}.py", "engine"),
    ("{pkg}/utils/{name}.py", "utils"),
    ("{pkg}/metrics/{name}.py", "metrics"),
    ("scripts/{name}.py", "script"),
    ("tests/test_{name}.py", "tests"),
]


def generate(seed, size_mb, out):
    g = Gen(seed)
    target = int(size_mb * 1024 * 1024)
    corpus = os.path.join(out, "corpus")
    os.makedirs(corpus, exist_ok=True)
    total = 0
    nfiles = 0
    repo_no = 0
    all_instances = []
    nearmiss_files = []
    planted_files = []
    made_dirs = set()
    while total < target:
        repo_no += 1
        repo = f"{g.pick(ORGS)}-{g.pick(PKG_NAMES)}-{g.pick(PROJECTS)}-{repo_no:04d}"
        pkg = g.pick(PKG_NAMES) + "_" + g.pick(PROJECTS)
        nrepo_files = int(math.exp(g.rnd.gauss(math.log(40), 0.7)))
        nrepo_files = max(6, min(nrepo_files, 400))
        files = [(f"{pkg}/__init__.py", "init")]
        for sub in ("models", "data", "engine", "utils", "metrics"):
            files.append((f"{pkg}/{sub}/__init__.py", "init"))
        files.append(("train.py", "script"))
        used = set(p for p, _ in files)
        for i in range(nrepo_files):
            pattern, role = REPO_LAYOUT[int(g.rnd.random() * len(REPO_LAYOUT))]
            name = f"{g.pick(FUNC_VERBS)}_{g.pick(FUNC_NOUNS)}"
            rel = pattern.format(pkg=pkg, name=name)
            if rel in used:
                rel = rel[:-3] + f"_{i}.py"
            used.add(rel)
            files.append((rel, role))
        extra = [
            ("README.md", f"# {repo}\n\nTraining and evaluation code for {pkg}.\n\n```\npython train.py --data data/\n```\n"),
            ("configs/default.yaml", f"model: {g.pick(MODEL_PARTS)}{g.pick(MODEL_KINDS)}\nlr: {g.pick(['1e-3', '3e-4'])}\nepochs: {g.rnd.randint(1, 300)}\nbatch_size: {g.pick(['32', '64'])}\n"),
        ]
        for rel, content in extra:
            path = os.path.join(corpus, repo, rel)
            d = os.path.dirname(path)
            if d not in made_dirs:
                os.makedirs(d, exist_ok=True)
                made_dirs.add(d)
            data = content.encode()
            with open(path, "wb") as fh:
                fh.write(data)
            total += len(data)
            nfiles += 1
        for rel, role in files:
            if total >= target:
                break
            is_init = role == "init"
            plant = not is_init and g.rnd.random() < PLANT_RATE
            nearmiss = not is_init and g.rnd.random() < NEARMISS_RATE
            text, inst, near = build_file(g, role if not is_init else "utils", rel, plant, nearmiss)
            data = text.encode("utf-8")
            path = os.path.join(corpus, repo, rel)
            d = os.path.dirname(path)
            if d not in made_dirs:
                os.makedirs(d, exist_ok=True)
                made_dirs.add(d)
            with open(path, "wb") as fh:
                fh.write(data)
            total += len(data)
            nfiles += 1
            relpath = f"{repo}/{rel}"
            if inst:
                planted_files.append(relpath)
            if near:
                nearmiss_files.append(relpath)
            for ln, idx in inst:
                all_instances.append([relpath, ln, idx])

    variants = []
    for fam, var, desc, imps, tmpl, codes, ag in VARIANTS:
        variants.append({"family": fam, "variant": var, "description": desc,
                         "mpsfix": codes, "ast_grep": ag, "why": WHY.get(var, "")})
    expected_mpsfix = {}
    expected_ag = {}
    planted = {}
    for _, _, idx in all_instances:
        v = variants[idx]
        key = f"{v['family']}/{v['variant']}"
        planted[key] = planted.get(key, 0) + 1
        for c in v["mpsfix"]:
            expected_mpsfix[c] = expected_mpsfix.get(c, 0) + 1
        if v["ast_grep"]:
            expected_ag[v["ast_grep"]] = expected_ag.get(v["ast_grep"], 0) + 1
    manifest = {
        "generator": "bench/gen.py",
        "generator_sha256": generator_hash(),
        "seed": seed,
        "size_mb": size_mb,
        "bytes": total,
        "files": nfiles,
        "python_files": nfiles - 2 * repo_no,
        "repositories": repo_no,
        "planted_files": len(planted_files),
        "nearmiss_files": sorted(nearmiss_files),
        "trigger_words": TRIGGER_WORDS,
        "seed_words": SEED_WORDS,
        "variants": variants,
        "planted": dict(sorted(planted.items())),
        "expected": {"mpsfix": dict(sorted(expected_mpsfix.items())),
                     "ast-grep": dict(sorted(expected_ag.items()))},
        "instances": all_instances,
    }
    with open(os.path.join(out, "MANIFEST.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=False)
        fh.write("\n")
    return manifest


def generator_hash():
    with open(os.path.abspath(__file__), "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate the synthetic ML-Python corpus for make bench.")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--size-mb", type=float, required=True)
    ap.add_argument("--out", required=True, help="writes OUT/corpus/ and OUT/MANIFEST.json")
    args = ap.parse_args(argv)
    if os.path.exists(os.path.join(args.out, "corpus")) and os.listdir(os.path.join(args.out, "corpus")):
        print(f"gen.py: {args.out}/corpus exists and is not empty; remove it first", file=sys.stderr)
        return 2
    m = generate(args.seed, args.size_mb, args.out)
    print(f"gen.py: {m['files']} files ({m['python_files']} .py), {m['bytes']} bytes, "
          f"{m['repositories']} repositories, {m['planted_files']} files with planted patterns "
          f"({len(m['instances'])} sites), {len(m['nearmiss_files'])} with near misses -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
