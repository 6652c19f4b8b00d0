# demo_serve.py — the demo's inference server (scripts/demo.sh,
# examples/ai/serve.yaml): loads the model demo_train.py saved and answers
# over HTTP on $PORT (default 8080):
#   GET /healthz                 ok, once the model is loaded (the readiness probe)
#   GET /predict?seed=S&n=N      predicts N synthetic samples of seed S (slexample's
#                                rule, so the labels are known): JSON with the model's
#                                parameter digest, the accuracy, the first labels and a
#                                SHA-256 of all predicted labels
#   POST /quit                   answers, then exits 0 (the pod Succeeds)
# `demo_serve.py --check MODEL S N` prints the /predict answer computed
# directly from MODEL, without a server: the demo compares the two.
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import torch

import slexample


def load(path):
    model = torch.nn.Linear(28 * 28, 10)
    model.load_state_dict(torch.load(path))
    model.eval()
    h = hashlib.sha256()
    for t in model.state_dict().values():
        h.update(t.detach().contiguous().numpy().tobytes())
    return model, h.hexdigest()[:16]


def predict(model, digest, seed, n):
    x, y = slexample.synthetic(seed, n)
    with torch.no_grad():
        labels = model(x - 0.5).argmax(dim=1)
    return {"model": digest, "n": n, "accuracy": round((labels == y).float().mean().item(), 4),
            "first": labels[:8].tolist(),
            "labels-sha256": hashlib.sha256(labels.numpy().astype("int64").tobytes()).hexdigest()[:16]}


if len(sys.argv) == 5 and sys.argv[1] == "--check":
    m, d = load(sys.argv[2])
    print(json.dumps(predict(m, d, int(sys.argv[3]), int(sys.argv[4])), sort_keys=True))
    sys.exit(0)

model, digest = load(os.path.join(os.environ.get("MODEL_DIR", "/model"), "model.pt"))


class Handler(BaseHTTPRequestHandler):
    def reply(self, code, body):
        data = (body if isinstance(body, str) else json.dumps(body, sort_keys=True)).encode() + b"\n"
        self.send_response(code)
        self.send_header("Content-Type", "application/json" if not isinstance(body, str) else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        u = urlparse(self.path)
        if u.path == "/healthz":
            return self.reply(200, "ok")
        if u.path != "/predict":
            return self.reply(404, "not found")
        q = parse_qs(u.query)
        try:
            seed, n = int(q.get("seed", ["999"])[0]), int(q.get("n", ["1000"])[0])
        except ValueError:
            return self.reply(400, "seed and n are integers")
        if not 0 < n <= 100000:
            return self.reply(400, "n out of range 1..100000")
        self.reply(200, predict(model, digest, seed, n))
        slexample.say(f"serve predicted seed={seed} n={n}")

    def do_POST(self):
        if urlparse(self.path).path != "/quit":
            return self.reply(404, "not found")
        self.reply(200, "bye")
        threading.Thread(target=server.shutdown).start()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("0.0.0.0", int(os.environ.get("PORT", "8080"))), Handler)
slexample.say(f"serve model={digest} gpu={os.environ.get('CUDA_VISIBLE_DEVICES', '-')} "
              f"node={os.environ.get('SLURMD_NODENAME', '?')} port={server.server_address[1]}")
server.serve_forever()
slexample.say("serve stopped")
