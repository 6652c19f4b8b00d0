# infer.py — the GPU workload of the real-GPU study (docs/benchmarks-history.md, "On a real GPU"):
# torchvision's SSDlite320-MobileNetV3 detector with random weights on 640x640
# images, one process start per run, as the comparison study's YOLOv8n runs were.
# Prints one line the report reads (bench/gpu/report.py):
#   slurmlink-bench-phases import=S load=S first=S steady=S images=N ips=X gpu=NAME cvd=...
import os, sys, time
t0 = time.time()
import torch, torchvision  # noqa: E402
t1 = time.time()
n = int(os.environ.get("BENCH_IMAGES", "16"))
m = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
m = m.cuda().eval()
torch.cuda.synchronize()
t2 = time.time()
x = [torch.rand(3, 640, 640, device="cuda")]
with torch.no_grad():
    m(x)
    torch.cuda.synchronize()
    t3 = time.time()
    for _ in range(n):
        m(x)
    torch.cuda.synchronize()
    t4 = time.time()
print(f"slurmlink-bench-phases import={t1-t0:.4f} load={t2-t1:.4f} first={t3-t2:.4f} "
      f"steady={t4-t3:.4f} images={n} ips={n/(t4-t3):.2f} gpu={torch.cuda.get_device_name(0).replace(' ', '_')} "
      f"cvd={os.environ.get('CUDA_VISIBLE_DEVICES')} torch={torch.__version__} "
      f"devs={','.join(sorted(d for d in os.listdir('/dev') if d.startswith('nvidia')))}",
      flush=True)
sys.exit(0)
