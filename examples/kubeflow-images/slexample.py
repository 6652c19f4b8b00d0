# slexample.py — what the example images' training scripts share: the process
# group from the variables a PyTorchJob's pods (or torchrun) get, and a
# small model trained on synthetic data (no internet on the nodes, so no
# dataset download). slurmlink's own code, not Kubeflow's.
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F


def init(backend="gloo"):
    """Joins the process group of MASTER_ADDR/MASTER_PORT, RANK, WORLD_SIZE."""
    dist.init_process_group(backend=backend)
    return dist.get_rank(), dist.get_world_size()


def synthetic(seed, n, features=28 * 28, classes=10):
    """n MNIST-shaped samples whose label is a fixed linear rule of the
    pixels, so a model can learn it; the same rule on every rank."""
    rule = torch.Generator().manual_seed(1234)
    w = torch.randn(features, classes, generator=rule)
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, features, generator=g)
    return x, (x - 0.5).matmul(w).argmax(dim=1)


def train(model, rank, steps=30, batch=64, lr=0.05):
    """DDP training on this rank's shard; returns (first loss, last loss)."""
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=lr)
    x, y = synthetic(rank, steps * batch)
    first = last = None
    for s in range(steps):
        xb, yb = x[s * batch:(s + 1) * batch], y[s * batch:(s + 1) * batch]
        opt.zero_grad()
        loss = F.cross_entropy(ddp(xb), yb)
        loss.backward()
        opt.step()
        last = loss.item()
        first = last if first is None else first
    return first, last


def replicas_equal(model):
    """DDP keeps every rank's replica equal: each rank's parameter sum is
    the mean of all ranks' sums."""
    s = torch.tensor([sum(p.sum().item() for p in model.parameters())])
    mean = s.clone()
    dist.all_reduce(mean)
    mean /= dist.get_world_size()
    return abs(mean.item() - s.item()) < 1e-4


def accuracy(model):
    x, y = synthetic(999, 1000)
    with torch.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean().item()


def say(line):
    """One line in one write: the processes of a pod share its stdout, and
    print() writes the text and its newline apart (PYTHONUNBUFFERED)."""
    os.write(1, (line + "\n").encode())


def node():
    return os.environ.get("HOSTNAME") or os.uname().nodename
