#!/usr/bin/env python3
"""fold-fielderrs.py — fold the former field-error names into the one error API.

The validators' field-error calls once had names of their own
(sl_fielderrs_t, sl_fielderrs_add, sl_fe_invalid, ... in src/pod/fielderr.h);
each is now a name of the error module (src/common/err.h), and
src/pod/fielderr.h is only a list of aliases. This script rewrites every use
in the C sources under the given folders (default: src t bench) to the error
module's names, replaces `#include "pod/fielderr.h"` with `common/err.h`
(dropped where the file includes that already), removes src/pod/fielderr.h,
and re-formats the lines it changed with clang-format (--lines, so nothing
else of a file moves).

It is idempotent: a second run finds nothing to change and says so. Run it
from the repository root (or give --root), then `make -j2 all` and
`t/run-tests --unit .`.

    scripts/fold-fielderrs.py [--root DIR] [--dry-run] [--no-format] [FOLDER ...]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

# old name -> the error module's (src/common/err.h)
RENAMES = {
    "sl_fielderrs_t": "sl_error_t",
    "sl_fielderrs_create": "sl_error_new_invalid",
    "sl_fielderrs_destroy": "sl_error_free",
    "sl_fielderrs_add_int": "sl_err_field_int",
    "sl_fielderrs_add": "sl_err_field",
    "sl_fielderrs_extend": "sl_err_fields_extend",
    "sl_fielderrs_count": "sl_err_nfields",
    "sl_fielderrs_get": "sl_err_fieldat",
    "sl_fielderrs_aggregate": "sl_err_fields_aggregate",
    "sl_fielderrs_lines": "sl_err_fields_lines",
    "sl_fe_required": "sl_err_required",
    "sl_fe_forbidden": "sl_err_forbidden",
    "sl_fe_invalid": "sl_err_invalid",
    "sl_fe_duplicate": "sl_err_duplicate",
    "sl_fe_not_found": "sl_err_not_found",
    "sl_fe_not_supported": "sl_err_not_supported",
}
NAME_RE = re.compile(r"\b(" + "|".join(sorted(RENAMES, key=len, reverse=True)) + r")\b")
OLD_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"pod/fielderr\.h"[^\n]*\n', re.M)
ERR_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"(common/)?err\.h"', re.M)
ALIAS_HEADER = os.path.join("src", "pod", "fielderr.h")
SOURCE_EXT = (".c", ".h")


def changed_lines(old, new):
    """1-based line numbers of new that differ from old (a plain line walk:
    the rewrite changes lines in place and only drops include lines)."""
    import difflib

    lines = []
    sm = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, _i1, _i2, j1, j2 in sm.get_opcodes():
        if tag in ("replace", "insert"):
            lines.extend(range(j1 + 1, j2 + 1))
    return lines


def rewrite(text, counts):
    def sub(m):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        return RENAMES[m.group(1)]

    out = NAME_RE.sub(sub, text)
    if OLD_INCLUDE_RE.search(out):
        counts["#include \"pod/fielderr.h\""] = counts.get("#include \"pod/fielderr.h\"", 0) + 1
        if ERR_INCLUDE_RE.search(out):
            out = OLD_INCLUDE_RE.sub("", out)
        else:
            out = OLD_INCLUDE_RE.sub('#include "common/err.h"\n', out, count=1)
            out = OLD_INCLUDE_RE.sub("", out)
    return out


def format_lines(path, lines):
    if not lines:
        return
    args = ["clang-format", "-i", "--style=file"]
    # each changed line and the next (a call's continuation lines re-align)
    for n in sorted(set(lines)):
        args.append("--lines=%d:%d" % (n, n + 1))
    subprocess.run(args + [path], check=True)


def source_files(root, folders):
    for folder in folders:
        top = os.path.join(root, folder)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "gen")
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXT):
                    yield os.path.join(dirpath, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".", help="the repository root (default: .)")
    ap.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    ap.add_argument("--no-format", action="store_true", help="do not run clang-format")
    ap.add_argument("folders", nargs="*", default=["src", "t", "bench"])
    o = ap.parse_args()
    root = o.root
    if not os.path.isfile(os.path.join(root, "src", "common", "err.h")):
        sys.exit("fold-fielderrs: %s is not the repository root (no src/common/err.h)" % root)
    fmt = not o.no_format and shutil.which("clang-format")
    if not o.no_format and not fmt:
        print("fold-fielderrs: no clang-format: lines are renamed but not re-formatted",
              file=sys.stderr)
    alias = os.path.normpath(os.path.join(root, ALIAS_HEADER))
    counts, files = {}, []
    for path in source_files(root, o.folders):
        if os.path.normpath(path) == alias:
            continue
        with open(path, encoding="utf-8") as f:
            old = f.read()
        new = rewrite(old, counts)
        if new == old:
            continue
        files.append(path)
        if o.dry_run:
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
        if fmt:
            format_lines(path, changed_lines(old, new))
    removed = os.path.exists(alias)
    if removed and not o.dry_run:
        os.remove(alias)
    total = sum(v for k, v in counts.items() if not k.startswith("#"))
    if not files and not removed:
        print("fold-fielderrs: nothing to fold (already done)")
        return 0
    print("fold-fielderrs: %s%d names in %d files, %d includes%s" %
          ("would rename " if o.dry_run else "renamed ", total, len(files),
           counts.get('#include "pod/fielderr.h"', 0),
           ("; " + ("would remove " if o.dry_run else "removed ") + ALIAS_HEADER) if removed else ""))
    for k in sorted(counts, key=lambda k: (-counts[k], k)):
        if not k.startswith("#"):
            print("  %5d  %s -> %s" % (counts[k], k, RENAMES[k]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
