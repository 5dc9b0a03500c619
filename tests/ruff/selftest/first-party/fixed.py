import os

import helpers
import torch

print(os, torch, helpers)
