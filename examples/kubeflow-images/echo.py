# echo.py — the elastic echo image's script, run by torch.distributed.run
# (torchrun) with the c10d rendezvous: each worker prints what the
# rendezvous gave it and checks it with an all-reduce of ones.
import os

import torch
import torch.distributed as dist

import slexample

rank, world = slexample.init()
t = torch.ones(1)
dist.all_reduce(t)
group = os.environ.get("GROUP_RANK", "?")
slexample.say(f"echo rank={rank} world={world} group_rank={group} restarts={os.environ.get('TORCHELASTIC_RESTART_COUNT', '?')} "
      f"sum={int(t.item())}")
dist.destroy_process_group()
assert int(t.item()) == world
