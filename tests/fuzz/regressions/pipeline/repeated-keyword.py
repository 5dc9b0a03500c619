import torch

# CPython refuses this call (keyword argument repeated); tree-sitter reads it.
# Fixing the last non_blocking let a second pass fix the other, which no
# finding had reported: such a call is now a syntax error, fixed by hand.
y = x.to(
    "mps",
    non_blocking=True,  # a comment
    "mps",
    non_blocking=True,
)
