# mnist.py — the mnist image's entrypoint: the command line of a distributed
# MNIST trainer (--backend, --epochs, --batch-size, --lr, --no-cuda) over a
# synthetic MNIST-shaped set (28x28 inputs, 10 classes; the nodes have no
# internet to download MNIST), a small convolutional net with DDP.
import argparse

import torch
import torch.distributed as dist

import slexample

ap = argparse.ArgumentParser(description="distributed MNIST-shaped training")
ap.add_argument("--backend", default="gloo", choices=["gloo", "nccl", "mpi"])
ap.add_argument("--epochs", type=int, default=1)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--no-cuda", action="store_true")
a = ap.parse_args()
cuda = torch.cuda.is_available() and not a.no_cuda
rank, world = slexample.init("gloo" if not cuda and a.backend == "nccl" else a.backend)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 4, 5, stride=2)
        self.fc = torch.nn.Linear(4 * 12 * 12, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x.view(-1, 1, 28, 28)))
        return self.fc(x.flatten(1))


torch.manual_seed(0)
model = Net()
for e in range(a.epochs):
    first, last = slexample.train(model, rank + e * world, batch=a.batch_size, lr=a.lr)
    slexample.say(f"mnist rank={rank} world={world} epoch={e + 1} loss {first:.3f} -> {last:.3f}")
acc = slexample.accuracy(model)
same = slexample.replicas_equal(model)
slexample.say(f"mnist rank={rank} accuracy={acc:.2f} replicas-equal={same} device={'cuda' if cuda else 'cpu'} backend={dist.get_backend()}")
dist.destroy_process_group()
assert same
