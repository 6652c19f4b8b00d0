# 39-privsep-stream.py — the WebSocket tools of t/39-privsep-stream.t, a raw
# client (TLS with a client certificate, RFC 6455 by hand) so that a test can
# send what no library would: one huge message, a flood of sessions.
#   bomb PORT CA CRT KEY PATH BYTES
#       upgrade PATH (an exec, v4.channel.k8s.io), send one binary message of
#       BYTES (channel 0, stdin) in 1 MiB pieces, stopping as soon as the
#       server says something; print "close CODE" (the server's close frame),
#       "close none" when none came within 15 s after the message, or
#       "refused STATUS"
#   flood PORT CA CRT KEY PATH N
#       open N port-forward sessions (PATH), print "opened K refused R codes C..."
#       (C: the status of each refused handshake), hold them until stdin closes
#   read PORT CA CRT KEY PATH
#       one port-forward session: print "data TEXT" (the first bytes on
#       channel 0 after the port frames), "error TEXT" (channel 1), "none" or
#       "refused STATUS BODY"
import base64, os, select, socket, ssl, struct, sys, time

def connect(port, ca, crt, key):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.load_cert_chain(crt, key)
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    return ctx.wrap_socket(s, server_hostname="127.0.0.1")

def upgrade(port, ca, crt, key, path):
    """(socket, None) once upgraded, (None, "STATUS BODY") when refused"""
    try:
        s = connect(port, ca, crt, key)
    except OSError as e:
        return None, "error %s" % e.__class__.__name__
    k = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
               "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n" % (path, k)).encode())
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            c = s.recv(65536)
            if not c:
                return None, "EOF"
            data += c
    except OSError as e:
        return None, "error %s" % e.__class__.__name__
    head, _, rest = data.partition(b"\r\n\r\n")
    code = head.split(b" ", 2)[1].decode()
    if code != "101":
        s.settimeout(2)
        try:
            while True:
                c = s.recv(65536)
                if not c:
                    break
                rest += c
        except OSError:
            pass
        return None, "%s %s" % (code, rest.decode(errors="replace").replace("\n", " "))
    s.buf = rest
    return s, None

def header(opcode, n):
    b = bytes([0x80 | opcode])
    if n < 126:
        b += bytes([0x80 | n])
    elif n < 65536:
        b += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        b += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return b + b"\0\0\0\0"  # a zero mask: the payload as is

def recv_some(s, left):
    s.settimeout(max(left, 0.01))
    try:
        c = s.recv(65536)
    except (socket.timeout, ssl.SSLWantReadError):
        return True
    except OSError:
        return False
    if not c:
        return False
    s.buf += c
    return True

def frame(s, deadline):
    while True:
        buf = s.buf
        if len(buf) >= 2:
            n, off = buf[1] & 0x7F, 2
            ok = True
            if n == 126:
                ok, n, off = len(buf) >= 4, (struct.unpack(">H", buf[2:4])[0] if len(buf) >= 4 else 0), 4
            elif n == 127:
                ok, n, off = len(buf) >= 10, (struct.unpack(">Q", buf[2:10])[0] if len(buf) >= 10 else 0), 10
            if ok and len(buf) >= off + n:
                s.buf = buf[off + n:]
                return buf[0] & 0x0F, buf[off:off + n]
        left = deadline - time.time()
        if left <= 0 or not recv_some(s, left):
            return None

def close_code(s, deadline):
    while True:
        f = frame(s, deadline)
        if f is None:
            return "none"
        if f[0] == 8:
            return str(struct.unpack(">H", f[1][:2])[0]) if len(f[1]) >= 2 else "empty"

def bomb(port, ca, crt, key, path, size):
    s, why = upgrade(port, ca, crt, key, path)
    if not s:
        print("refused", why)
        return
    chunk = bytes(1 << 20)
    try:
        s.sendall(header(2, size) + b"\0")
        sent = 1
        while sent < size:
            n = min(len(chunk), size - sent)
            s.sendall(chunk[:n])
            sent += n
            if s.buf or s.pending() or select.select([s], [], [], 0)[0]:
                break
    except (OSError, TypeError):
        pass
    print("close", close_code(s, time.time() + 15), flush=True)

def flood(port, ca, crt, key, path, n):
    held, codes = [], []
    for _ in range(n):
        s, why = upgrade(port, ca, crt, key, path)
        if s:
            held.append(s)
        else:
            codes.append(why.split(" ", 1)[0])
    print("opened", len(held), "refused", len(codes), "codes", *codes, flush=True)
    sys.stdin.read()

def read(port, ca, crt, key, path):
    s, why = upgrade(port, ca, crt, key, path)
    if not s:
        print("refused", why)
        return
    end = time.time() + 10
    ports = 0
    while True:
        f = frame(s, end)
        if f is None:
            print("none")
            return
        if f[0] != 2 or not f[1]:
            continue
        ch, data = f[1][0], f[1][1:]
        if ports < 2:  # the port number, first on each channel
            ports += 1
            continue
        print("data" if ch == 0 else "error", data.decode(errors="replace").strip())
        return

if __name__ == "__main__":
    mode, port, ca, crt, key, path = sys.argv[1:7]
    if mode == "bomb":
        bomb(int(port), ca, crt, key, path, int(sys.argv[7]))
    elif mode == "flood":
        flood(int(port), ca, crt, key, path, int(sys.argv[7]))
    else:
        read(int(port), ca, crt, key, path)
