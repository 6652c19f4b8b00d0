"""kubecred.py — the admin's TLS credential of a `slurmlink up` cluster
(D/kubeconfig: its CA and client certificate), for the bench scripts that
talk to slurmlinkd's HTTPS port with http.client."""
import base64, http.client, ssl, tempfile

import yaml


def tls_context(d):
    """an ssl context trusting the cluster's CA, presenting the admin's certificate"""
    kc = yaml.safe_load(open(f"{d}/kubeconfig"))
    user, cluster = kc["users"][0]["user"], kc["clusters"][0]["cluster"]
    tmp = tempfile.mkdtemp()
    files = {}
    for key, name in (("client-certificate-data", "crt"), ("client-key-data", "key"),
                      ("certificate-authority-data", "ca")):
        files[name] = f"{tmp}/{name}"
        with open(files[name], "wb") as f:
            f.write(base64.b64decode(cluster[key] if name == "ca" else user[key]))
    ctx = ssl.create_default_context(cafile=files["ca"])
    ctx.check_hostname = False
    ctx.load_cert_chain(files["crt"], files["key"])
    return ctx


def https(port, ctx, timeout=120):
    """a connection to slurmlinkd on 127.0.0.1:port"""
    return http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=ctx)
