#!/usr/bin/env python3
"""file_refs_test.py - comments that name a repository file name one that exists.

Scans the comments of our sources, CMake files and scripts for file names:
a path from one of our top-level FOLDERS ("route/router.cc", "docs/GPU.md", "kernels/thread/",
"tests/vectors/dilithium-round3") or a bare name with one of our extensions
("sign.cu"); "a/b" without an extension or a closing slash is taken for
prose, and a name followed by "*" or "<" for a pattern. A name counts as
found when a file or folder of that path, or ending in that path, exists in
the repository (so "task/ntt.h" finds kernels/thread/ntt.h). NOT_OURS lists
names of other projects' files; add to it only such names.
Usage: file_refs_test.py [repository root]  (default: two folders up)."""
import os
import re
import sys

NOT_OURS = {
    "openssl.cnf", "core_names.h", "ssl.h", "ml_dsa_codecs.c",  # OpenSSL's
    "randombytes.h",                                               # pq-crystals' reference code
    "tests/kat_sig.c", "tests/KATs/sig/kats.json",                 # liboqs' (Falcon KAT digests)
}
FOLDERS = ("cpu", "kernels", "provctx", "route", "keymgmt", "encoders", "provider",
           "tests", "bench", "tools", "examples", "packaging", "scripts", "docs", "cmake",
           "composite", "include", "bulk", ".ci")
SCAN_EXT = (".h", ".c", ".cc", ".cpp", ".cu", ".cuh", ".cmake", ".sh", ".py", "CMakeLists.txt")
NAME_EXT = r"(?:h|c|cc|cpp|cu|cuh|cmake|sh|py|md|txt|map|cnf)"
# a path of our folders, or a bare file name with one of our extensions
REF = re.compile(r"(?<![\w./$-])((?:[\w.+-]+/)+(?:[\w.+-]*\w)?|[\w+-]+\.%s)(?![\w/])(.?)" % NAME_EXT)
COMMENT = {  # line-comment markers per kind of file
    "c": re.compile(r"//(.*)|/\*(.*?)(?:\*/|$)|^\s*\*(.*)"),
    "hash": re.compile(r"(?:^|\s)#(?!include|define|if|endif|else|elif|pragma|undef|error)(.*)"),
}


def comments(path, text):
    kind = "hash" if path.endswith((".cmake", ".sh", ".py", "CMakeLists.txt")) else "c"
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in COMMENT[kind].finditer(line):
            yield lineno, " ".join(g for g in m.groups() if g)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    files, folders = [], set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(("build", ".git"))]
        rel = os.path.relpath(dirpath, root)
        if rel != ".":
            folders.add(rel)
        files += [os.path.normpath(os.path.join(rel, n)) for n in filenames]
    known = set(files) | folders

    def exists(ref):
        ref = ref.rstrip("/.")
        if ref.startswith("./"):
            ref = ref[2:]
        return any(k == ref or k.endswith("/" + ref) for k in known)

    bad = 0
    for path in files:
        if not path.endswith(SCAN_EXT) or path.split("/")[0] not in FOLDERS + ("CMakeLists.txt",):
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for lineno, comment in comments(path, text):
            for m in REF.finditer(comment):
                ref = m.group(1)
                if m.group(2) in ("*", "<"):
                    continue  # a pattern (coop_*.cu, PQCsignKAT_<name>.rsp), not one file
                first = ref.split("/")[0]
                has_ext = re.search(r"\.%s$" % NAME_EXT, ref)
                if "/" in ref and first not in FOLDERS:
                    continue  # another project's path (crypto/...), a unit (ns/op)
                if not has_ext and ref.count("/") == 1 and not ref.endswith("/"):
                    continue  # "keymgmt/signature" is prose; a folder is written "route/"
                if ref in NOT_OURS:
                    continue
                if not exists(ref):
                    print(f"{path}:{lineno}: names {ref}, which is not in the repository")
                    bad += 1
    print(f"{bad} comment(s) naming files that do not exist")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
