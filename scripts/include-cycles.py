#!/usr/bin/env python3
"""include-cycles.py [FOLDER...] — the include cycles of the source tree.

A unit is a .c file with the .h of the same name (src/api/server.c and
src/api/server.h are one unit, "api/server"); unit A depends on unit B when
a file of A includes B's header. Prints each strongly connected component
of more than one unit (an include cycle) with its size, largest first, then
the same for folders (module level: src/api, src/http, ...). FOLDER limits
the units listed to those under it (default: all of src/)."""
import os, re, sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def units():
    deps = defaultdict(set)
    for d, _, files in os.walk(SRC):
        if "/test" in d[len(SRC):] or "/gen" in d[len(SRC):]:
            continue
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            unit = os.path.relpath(path, SRC)[:-2]
            deps[unit]
            for inc in INC.findall(open(path, errors="replace").read()):
                if inc.endswith(".h") and os.path.exists(os.path.join(SRC, inc)):
                    target = inc[:-2]
                    if target != unit:
                        deps[unit].add(target)
    return deps


def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in list(graph):
        if v not in index:
            visit(v)
    return [sorted(c) for c in out if len(c) > 1]


def main():
    only = [a.rstrip("/").removeprefix("src/") for a in sys.argv[1:]]
    deps = units()
    comps = sorted(sccs(deps), key=len, reverse=True)
    comps = [c for c in comps if not only or any(u.startswith(o + "/") for u in c for o in only)]
    total = sum(len(c) for c in comps)
    print(f"unit cycles: {len(comps)} ({total} units)")
    for c in comps:
        print(f"  {len(c)}: {' '.join(c)}")
    folders = defaultdict(set)
    for u, ds in deps.items():
        for d in ds:
            a, b = os.path.dirname(u), os.path.dirname(d)
            if a != b:
                folders[a].add(b)
            else:
                folders[a]
    fc = sccs(folders)
    print(f"folder cycles: {len(fc)}")
    for c in fc:
        print(f"  {len(c)}: {' '.join(c)}")


main()
