"""Count the job's processes and, per process, its machine's processes and the GPUs it
can see."""
import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
mine = {"node": os.environ["GROUP_RANK"],  # which machine: the launcher's node rank
        "LOCAL_RANK": os.environ["LOCAL_RANK"],
        "LOCAL_WORLD_SIZE": int(os.environ["LOCAL_WORLD_SIZE"]),  # its processes
        "GPUs": torch.cuda.device_count()}  # the GPUs visible to it
seen = [None] * dist.get_world_size()
dist.all_gather_object(seen, mine)
if dist.get_rank() == 0:
    for rank, counts in enumerate(seen):  # in rank order
        print(f"RANK={rank}", " ".join(f"{k}={v}" for k, v in counts.items()),
              "| dist.get_world_size():", dist.get_world_size())
    nodes = [counts["node"] for counts in seen]
    for counts in seen:  # LOCAL_WORLD_SIZE counts the processes of one machine
        assert counts["LOCAL_WORLD_SIZE"] == nodes.count(counts["node"])
dist.barrier()  # every rank gets here before the group is torn down
dist.destroy_process_group()
