# 87-pytorchjob-elastic.py — the training of t/87-pytorchjob-elastic.t, run by
# torchrun (python3 -m torch.distributed.run) from the operator's elastic
# environment alone: torchrun reads PET_NNODES (min:max), PET_RDZV_BACKEND,
# PET_RDZV_ENDPOINT, PET_RDZV_CONF, PET_MAX_RESTARTS, PET_NPROC_PER_NODE,
# meets the other nodes at the c10d rendezvous on worker-0's node and sets
# RANK/WORLD_SIZE/MASTER_ADDR for this process; then a gloo all-reduce of
# rank+1 (the sum is checked by the test: n(n+1)/2).
import os
import socket

import torch
import torch.distributed as dist

pet = {k: os.environ.get(k, "-") for k in ("PET_NNODES", "PET_RDZV_BACKEND", "PET_RDZV_ENDPOINT",
       "PET_RDZV_CONF", "PET_MAX_RESTARTS", "PET_NPROC_PER_NODE", "WORLD_SIZE")}
print("pet " + " ".join(f"{k}={v}" for k, v in pet.items()), flush=True)
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(r + 1)])
dist.all_reduce(t)
print(f"rank {r}/{w} on {socket.gethostname()}: all_reduce {t.item():g}", flush=True)
dist.destroy_process_group()
