# dist_sendrecv.py — the sendrecv image's entrypoint: point-to-point
# messages over the process group; every rank sends its rank to rank 0 and
# rank 0 checks the sum.
import torch
import torch.distributed as dist

import slexample

rank, world = slexample.init()
if rank == 0:
    got = []
    for src in range(1, world):
        t = torch.zeros(1)
        dist.recv(t, src=src)
        got.append(int(t.item()))
    total = sum(got)
    slexample.say(f"sendrecv rank=0 world={world} received={sorted(got)} sum={total}")
    assert total == world * (world - 1) // 2
else:
    dist.send(torch.tensor([float(rank)]), dst=0)
    slexample.say(f"sendrecv rank={rank} world={world} sent={rank}")
dist.destroy_process_group()
