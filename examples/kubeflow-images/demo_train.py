# demo_train.py — the demo's training (scripts/demo.sh, examples/ai/train.yaml),
# run by torchrun in each replica of a PyTorchJob (Master + Worker, a node
# and a GPU each): DDP with Adam of a small classifier on synthetic
# MNIST-shaped data (slexample's rule, inputs centred), each rank on its own
# shard. Every rank prints its loss (the mean of the first and of the last
# ten steps: it must fall), its node and GPU, and a SHA-256 of its
# parameters, which all ranks must agree on (DDP keeps the replicas equal);
# rank 0 saves the model to $MODEL_DIR/model.pt for demo_serve.py.
import hashlib
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

import slexample


def digest(model):
    h = hashlib.sha256()
    for t in model.state_dict().values():
        h.update(t.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def train(model, rank, steps, batch=64):
    """DDP on this rank's shard; returns (first loss, last loss)."""
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(ddp.parameters(), lr=0.01)
    x, y = slexample.synthetic(rank, steps * batch)
    losses = []
    for s in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(ddp(x[s * batch:(s + 1) * batch] - 0.5), y[s * batch:(s + 1) * batch])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return sum(losses[:10]) / 10, sum(losses[-10:]) / 10


def accuracy(model):
    x, y = slexample.synthetic(999, 1000)
    with torch.no_grad():
        return (model(x - 0.5).argmax(dim=1) == y).float().mean().item()


rank, world = slexample.init()
torch.manual_seed(0)
model = torch.nn.Linear(28 * 28, 10)
first, last = train(model, rank, int(os.environ.get("STEPS", "200")))
mine = digest(model)
every = [None] * world
dist.all_gather_object(every, mine)
agree = all(d == mine for d in every)
acc = accuracy(model)
slexample.say(f"train rank={rank} world={world} node={os.environ.get('SLURMD_NODENAME', '?')} "
              f"gpu={os.environ.get('CUDA_VISIBLE_DEVICES', '-')} loss {first:.3f} -> {last:.3f} "
              f"accuracy={acc:.2f} params-sha256={mine[:16]} ranks-agree={agree}")
if rank == 0 and agree and last < first:
    out = os.path.join(os.environ.get("MODEL_DIR", "/model"), "model.pt")
    torch.save(model.state_dict(), out + ".tmp")
    os.replace(out + ".tmp", out)
    slexample.say(f"train saved {out} params-sha256={mine[:16]}")
dist.destroy_process_group()
assert agree and last < first
