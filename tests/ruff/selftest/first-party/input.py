import os

import torch

import helpers

print(os, torch, helpers)
