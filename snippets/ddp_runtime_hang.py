"""One rank runs a collective that the other does not, with short timeouts.

--extra R    the rank that runs one extra all_reduce (say, a metric logged inside `if rank == R`);
             without it, every rank runs the same collectives
--monitored  all ranks meet at dist.monitored_barrier() before the next collective

Rank R times out after 3 s, the others after 20 s: the first rank to time out closes its
connections, and which one comes first when all share one timeout is a matter of milliseconds."""
import argparse
import datetime
import os
import re
import sys
import time

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--extra", type=int, default=None)
parser.add_argument("--monitored", action="store_true")
args = parser.parse_args()

rank = int(os.environ["RANK"])
seconds = 3 if rank == args.extra else 20
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=seconds))  # the default is 30 min
try:
    if rank == args.extra:
        dist.all_reduce(torch.ones(1))  # only this rank
    if args.monitored:
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=2))
    dist.all_reduce(torch.ones(4))  # every rank: say, the gradients
    sys.stdout.write(f"rank {rank}: finished\n")
except RuntimeError as e:
    message = str(e).splitlines()[0]
    message = re.sub(r"^\[\S+\] ", "", message)  # the C++ source location
    message = re.sub(r", TensorDtypes=.*?\(nullopt\)\)\)", ")", message)  # dtype and device details
    message = message.split(".Collectives differ")[0]
    message = re.sub(r" \[[^\]]*\]:\d+", "", message)  # the peer's address and port
    sys.stdout.write(f"rank {rank}: RuntimeError: {message}\n")  # one write: ranks write at once
    sys.stdout.flush()
    # Stay up until every rank has reported: torchrun stops the other workers as soon as one
    # exits with an error, and a rank stopped before it wrote would print nothing. torchrun's
    # store (its own TCP connection, not the process group's) counts the ranks that have reported.
    store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False)
    store.add("reported", 1)
    deadline = time.monotonic() + 60
    while store.add("reported", 0) < dist.get_world_size() and time.monotonic() < deadline:
        time.sleep(0.1)
    os._exit(1)
sys.stdout.flush()
os._exit(0)
