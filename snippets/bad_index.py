"""An embedding lookup with an index out of range, and the line where the error is reported.

python snippets/bad_index.py --device cpu|cuda
"""
import argparse
import os
import sys
import time
import traceback

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
device = parser.parse_args().device

torch.manual_seed(0)
emb = nn.Embedding(10, 4).to(device)  # valid indices: 0 ... 9
idx = torch.tensor([3, 10], device=device)  # 10 is out of range
try:
    out = emb(idx)  # the bad lookup
    time.sleep(1)  # Python goes on while the GPU runs the kernel
    total = out.sum()  # the next CUDA call
    print(total.item())  # the value, copied to the CPU
except (IndexError, RuntimeError) as e:
    frame = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__][-1]
    print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
    print(f"reported at line {frame.lineno}: {frame.line}")
    if device != "cpu":  # the CUDA context is unusable now: skip its teardown at exit
        sys.stdout.flush()
        os._exit(0)
