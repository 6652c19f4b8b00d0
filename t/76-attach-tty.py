#!/usr/bin/python3
# 76-attach-tty.py — drives a real kubectl under a pseudo-terminal for
# t/76-attach-tty.t (python3's pty module: the terminal a user types into).
#   76-attach-tty.py ROWS COLS SCRIPT -- KUBECTL-ARGV...
# SCRIPT is a list of steps, one a line:
#   send TEXT        (\r, \n, \x.. as in Python strings)
#   expect REGEX     (in the output so far, from the last match on; 120 s at most)
#   size ROWS COLS   (the terminal is resized: kubectl gets SIGWINCH)
#   wait             (kubectl's exit; prints "exit N")
# Prints "matched: TEXT" per expect, or "missed: REGEX" with the output, and exits 1.
import fcntl, os, pty, re, select, struct, sys, termios, time


def setsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main():
    rows, cols, script = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    argv = sys.argv[sys.argv.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        setsize(0, rows, cols)
        os.execvp(argv[0], argv)
    setsize(fd, rows, cols)
    out, pos = b"", 0

    def pump(t):
        nonlocal out
        r, _, _ = select.select([fd], [], [], t)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return False
            if not d:
                return False
            out += d
        return True

    for step in script.splitlines():
        if not step.strip():
            continue
        op, _, arg = step.partition(" ")
        if op == "send":
            os.write(fd, arg.encode().decode("unicode_escape").encode())
        elif op == "size":
            r_, c_ = arg.split()
            setsize(fd, int(r_), int(c_))
            os.kill(pid, 28)  # SIGWINCH: as a terminal emulator's resize
        elif op == "expect":
            end = time.time() + 120
            rx = re.compile(arg.encode())
            while True:
                m = rx.search(out, pos)
                if m:
                    print("matched:", m.group(0).decode(errors="replace"))
                    pos = m.end()
                    break
                if time.time() > end or not pump(0.2):
                    print("missed:", arg)
                    print("output:", repr(out[-2000:]))
                    sys.exit(1)
        elif op == "wait":
            end = time.time() + 120
            while time.time() < end:
                p, st = os.waitpid(pid, os.WNOHANG)
                if p:
                    print("exit", os.waitstatus_to_exitcode(st))
                    break
                pump(0.2)
            else:
                print("exit timeout")
                sys.exit(1)
    try:  # a session still attached: kubectl goes, as a user closing the terminal
        os.kill(pid, 15)
        os.waitpid(pid, 0)
    except OSError:
        pass
    sys.stdout.flush()


main()
