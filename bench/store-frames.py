#!/usr/bin/env python3
"""bench/store-frames.py STORE [POD.json] — the WAL frames (pages written
to SQLite's log) a create costs, by how many creates share a transaction:
a fresh database in a temporary folder takes the tables and indexes of
STORE (a store slurmlinkd or bench/store-writer.c made: its schema, not a
copy of it here) and its pragmas (auto_vacuum incremental, WAL), and
after 2,000 creates one per transaction, 640 creates are made in groups of
1, 4, 16 and 64 with the WAL's checkpoints off; the WAL's growth over
them, in frames a create, is printed. A create is what sl_store_create
writes: the object's row and its ADDED change, each the whole text
(bench/store-writer-pod.json, 2.4 KB). It shows why a commit's cost is
per transaction more than per create (state.group_commit, docs/benchmarks.md
run 12)."""
import os
import sqlite3
import sys
import tempfile

if len(sys.argv) < 2:
    sys.exit(__doc__)
src = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
schema = [r[0] for r in src.execute(
    "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
    "ORDER BY type = 'index', rowid")]
src.close()
pod = open(sys.argv[2] if len(sys.argv) > 2 else "bench/store-writer-pod.json").read()
d = tempfile.mkdtemp()
path = os.path.join(d, "f.db")
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA auto_vacuum=INCREMENTAL")
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("PRAGMA wal_autocheckpoint=0")
for sql in schema:
    db.execute(sql)
rv = 0


def create(name):
    global rv
    rv += 1
    db.execute("INSERT INTO objects (resource, ns, name, rv, data) VALUES ('pods', 'bench', ?, ?, ?)",
               (name, rv, pod))
    db.execute("INSERT INTO changes (rv, type, resource, ns, name, data) VALUES (?, 1, 'pods', 'bench', ?, ?)",
               (rv, name, pod))


for i in range(2000):
    db.execute("BEGIN IMMEDIATE")
    create(f"warm-{i}")
    db.execute("COMMIT")
page = db.execute("PRAGMA page_size").fetchone()[0]
print(f"{len(pod)} B object, {page} B pages, {len(schema)} tables and indexes from {sys.argv[1]}")
for g in (1, 4, 16, 64):
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    n = 640
    for k in range(n // g):
        db.execute("BEGIN IMMEDIATE")
        for j in range(g):
            create(f"g{g}-{k}-{j}")
        db.execute("COMMIT")
    frames = (os.path.getsize(path + "-wal") - 32) / (page + 24)
    print(f"  {g:2d} creates a transaction: {frames / n:.2f} WAL frames a create ({frames * page / n / 1024:.1f} KiB)")
db.close()
for f in os.listdir(d):
    os.remove(os.path.join(d, f))
os.rmdir(d)
