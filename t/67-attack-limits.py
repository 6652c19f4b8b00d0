# 67-attack-limits.py — the connection tools of t/67-attack-limits.t.
#   idle PORT N             open N silent TCP connections (no TLS handshake),
#                           print "open K" (how many connected), hold until stdin closes
#   hold PORT CA N TOKEN PATH  open N TLS connections, send one keep-alive GET of PATH
#                           with the bearer TOKEN on each, print the status codes
#                           ("codes 200 200 429"), hold until stdin closes
#   flood PORT SECONDS      keep opening silent connections for SECONDS (replacing
#                           those the server closes), print "flooded N"
import socket, ssl, sys, time

def idle(port, n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        try:
            s.connect(("127.0.0.1", port))
            socks.append(s)
        except OSError:
            s.close()
    print("open", len(socks), flush=True)
    sys.stdin.read()

def status_of(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return "EOF"
        data += chunk
    return data.split(b" ", 2)[1].decode()

def hold(port, ca, n, token, path):
    ctx = ssl.create_default_context(cafile=ca)
    conns, codes = [], []
    for _ in range(n):
        try:
            c = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                                server_hostname="127.0.0.1")
            c.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                       "Connection: keep-alive\r\n\r\n" % (path, token)).encode())
            codes.append(status_of(c))
            conns.append(c)
        except OSError as e:
            codes.append("ERR")
    print("codes", " ".join(codes), flush=True)
    sys.stdin.read()

def flood(port, seconds):
    end = time.time() + seconds
    socks, n = [], 0
    while time.time() < end:
        s = socket.socket()
        try:
            s.connect(("127.0.0.1", port))
            socks.append(s)
            n += 1
        except OSError:
            s.close()
        if len(socks) > 800:
            socks.pop(0).close()
    print("flooded", n, flush=True)

cmd = sys.argv[1]
if cmd == "idle":
    idle(int(sys.argv[2]), int(sys.argv[3]))
elif cmd == "hold":
    hold(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
elif cmd == "flood":
    flood(int(sys.argv[2]), float(sys.argv[3]))
