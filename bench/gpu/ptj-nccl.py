# ptj-nccl.py — the single-replica PyTorchJob of the real-GPU run: NCCL on
# the GPU Slurm bound, the environment slurmlinkd sets as the Training
# Operator would (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK), an all-reduce
# whose value is checked and a few DDP steps of a tiny model.
import os
import torch
import torch.distributed as dist

for k in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "PET_NNODES", "CUDA_VISIBLE_DEVICES"):
    print(f"{k}={os.environ.get(k)}", flush=True)
dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
dev = torch.device("cuda", 0)
print(f"rank {rank}/{world} on {torch.cuda.get_device_name(dev)}", flush=True)
t = torch.full((4,), float(rank + 1), device=dev)
dist.all_reduce(t)
want = float(world * (world + 1) // 2)
print(f"allreduce {t.tolist()} want {want}: {'ok' if bool((t == want).all()) else 'WRONG'}", flush=True)
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 1).to(dev), device_ids=[0])
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(256, 64, device=dev)
y = x.sum(dim=1, keepdim=True) * 0.1
for step in range(30):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    if step in (0, 29):
        print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
