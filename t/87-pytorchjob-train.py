# 87-pytorchjob-train.py — the training of the PyTorchJob tests and bench:
# torch.distributed with the gloo backend from the operator's environment
# (env://: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK), an all-reduce of
# rank+1 (the sum is checked: n(n+1)/2), then a few DDP steps of a tiny
# linear model whose loss must fall. FAIL_MODE (workers only): "once"
# fails the first attempt (a marker in FAIL_DIR), "always" every one,
# "hang-once" sleeps through the first attempt (its node is then killed).
# "clock start/end NS": wall-clock times for bench/pytorchjob.sh.
import os
import socket
import sys
import time

print(f"clock start {time.time_ns()}", flush=True)

import torch
import torch.distributed as dist

env = {k: os.environ.get(k, "") for k in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
       "PET_NODE_RANK", "PET_NNODES", "PET_NPROC_PER_NODE", "PET_MASTER_ADDR", "PYTHONUNBUFFERED")}
print("env " + " ".join(f"{k}={v}" for k, v in env.items()), flush=True)
rank = int(env["RANK"])
mode, fdir = os.environ.get("FAIL_MODE", ""), os.environ.get("FAIL_DIR", "")
if rank > 0 and (mode == "always" or (mode == "once" and not os.path.exists(f"{fdir}/failed"))):
    open(f"{fdir}/failed", "w").close()
    print(f"rank {rank}: failing on purpose ({mode})", flush=True)
    sys.exit(3)
if rank > 0 and mode == "hang-once" and not os.path.exists(f"{fdir}/hung"):
    open(f"{fdir}/hung", "w").write(socket.gethostname())
    print(f"rank {rank}: hanging on purpose on {socket.gethostname()}", flush=True)
    time.sleep(600)
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(r + 1)])
dist.all_reduce(t)
print(f"rank {r}/{w} on {socket.gethostname()}: all_reduce {t.item():g}", flush=True)
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
g = torch.Generator().manual_seed(r)
X = torch.randn(64, 4, generator=g)
y = X @ torch.tensor([[1.0, -2.0, 3.0, 0.5]]).T
losses = []
for step in range(int(os.environ.get("STEPS", "30"))):
    opt.zero_grad()
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    opt.step()
    losses.append(loss.item())
print(f"rank {r}: loss {losses[0]:.4f} -> {losses[-1]:.4f}", flush=True)
dist.destroy_process_group()
print(f"clock end {time.time_ns()}", flush=True)
