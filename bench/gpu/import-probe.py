# import-probe.py — why the container's imports are slower (bench/gpu/run.sh, step
# diag): times `import torch` and `import torchvision` in this process, counts the
# compiled bytecode next to torch's sources and says whether Python may write it.
import os, sys, time
t0 = time.time()
import torch  # noqa: E402
t1 = time.time()
import torchvision  # noqa: E402,F401
t2 = time.time()
top = os.path.dirname(torch.__file__)
py = pyc = 0
for d, _, files in os.walk(top):
    py += sum(f.endswith(".py") for f in files)
    pyc += sum(f.endswith(".pyc") for f in files)
w = os.access(top, os.W_OK)
print(f"import-probe where={os.environ.get('PROBE_WHERE', '?')} torch={t1-t0:.3f} torchvision={t2-t1:.3f} "
      f"modules={len(sys.modules)} py={py} pyc={pyc} torch_dir_writable={int(w)} "
      f"dont_write_bytecode={int(sys.dont_write_bytecode)} uid={os.getuid()}", flush=True)
