#!/usr/bin/env python3
"""include-cycles.py [FOLDER...] — the cycles of the source tree.

Two measures, each a list of strongly connected components of more than
one member (a cycle), largest first:
- headers: a unit is a .c file with the .h of the same name; unit A
  depends on unit B when a file of A includes B's header;
- calls: a .c file depends on another when it names a function (or a
  global) that the other alone defines, the ties that a shared internal
  header hides (every file includes it, so its header graph is a star).
Then the folder level of the header graph (src/api, src/http, ...).
FOLDER (e.g. src/api) limits the cycles listed to those touching it.
Tests (*/test/) and generated files (*/gen/) are left out."""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a definition at column 0: type words, the name, '(' ... and no ';' before '{'
DEF = re.compile(r"^(?!static\b|typedef\b|extern\b|#|\s)[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{",
                 re.M)
WORD = re.compile(r"\b[A-Za-z_]\w*\b")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"", re.S)


def sources():
    for d, _, files in os.walk(SRC):
        rel = d[len(SRC):]
        if "/test" in rel or "/gen" in rel or rel.startswith("/fuzz"):
            continue
        for f in files:
            if f.endswith((".c", ".h")):
                yield os.path.join(d, f)


def header_graph():
    deps = defaultdict(set)
    for path in sources():
        unit = os.path.relpath(path, SRC)[:-2]
        deps[unit]
        for inc in INC.findall(open(path, errors="replace").read()):
            if inc.endswith(".h") and os.path.exists(os.path.join(SRC, inc)):
                if inc[:-2] != unit:
                    deps[unit].add(inc[:-2])
    return deps


def call_graph():
    text, owner = {}, defaultdict(set)
    for path in sources():
        if not path.endswith(".c"):
            continue
        unit = os.path.relpath(path, SRC)
        body = COMMENT.sub(" ", open(path, errors="replace").read())
        text[unit] = body
        for name in DEF.findall(body):
            owner[name].add(unit)
    deps = defaultdict(set)
    for unit, body in text.items():
        deps[unit]
        for w in set(WORD.findall(body)):
            o = owner.get(w)
            if o and len(o) == 1 and unit not in o:
                deps[unit].add(next(iter(o)))
    return deps


def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(20000)

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
            out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return sorted((c for c in out if len(c) > 1), key=len, reverse=True)


def show(title, comps, only):
    comps = [c for c in comps if not only or any(u.startswith(o + "/") for u in c for o in only)]
    print(f"{title}: {len(comps)} cycle(s), {sum(len(c) for c in comps)} members")
    for c in comps:
        print(f"  {len(c)}: {' '.join(c)}")


def main():
    only = [a.rstrip("/").removeprefix("src/") for a in sys.argv[1:]]
    hg = header_graph()
    show("header cycles", sccs(hg), only)
    show("call cycles", sccs(call_graph()), only)
    folders = defaultdict(set)
    for u, ds in hg.items():
        folders[os.path.dirname(u)]
        for d in ds:
            if os.path.dirname(u) != os.path.dirname(d):
                folders[os.path.dirname(u)].add(os.path.dirname(d))
    show("folder cycles", sccs(folders), [])


main()
