# demo.py — the cpu-demo image's script (run as `torchrun demo.py` in /):
# every process of every node trains one small model with DDP on synthetic
# data; the parameters all-reduced at the end must agree on every rank.
import torch
import torch.distributed as dist

import slexample

rank, world = slexample.init()
torch.manual_seed(0)
model = torch.nn.Linear(28 * 28, 10)
first, last = slexample.train(model, rank)
same = slexample.replicas_equal(model)
slexample.say(f"cpu-demo rank={rank} world={world} loss {first:.3f} -> {last:.3f} replicas-equal={same}")
dist.destroy_process_group()
assert same
