#!/usr/bin/env python3
"""layering_test.py - every #include "..." between our folders points down the layer order
of docs/ARCHITECTURE.md.

Reads every #include "..." under the source folders, resolves it to a file
of this repository (relative to the including file, the repository root or
include/), and fails on an edge that LAYERS below does not allow. Includes that
resolve to no file here (OpenSSL's, the system's) are not ours and are ignored.

LAYERS is the one statement of the order: a layer may include itself and the
layers it lists. A new folder gets a row here and a line in ARCHITECTURE.md.
Usage: layering_test.py [repository root]  (default: two folders up)."""
import os
import re
import sys

# layer -> the layers it may include, bottom to top. A layer is a top-level
# folder, or a sub-folder named as "folder/sub" (the more specific name wins).
LAYERS = {
    "cpu":            [],
    "cpu/avx2":       ["cpu"],
    "cpu/avx512":     ["cpu", "cpu/avx2"],
    "cpu/neon":       ["cpu"],
    "cpu/falcon":     ["cpu"],
    "include":        [],                                        # public C API (being added)
    # kernels/, bottom to top (docs/ARCHITECTURE.md): thread-level task code,
    # the SIMT layer, warp then block cooperative code, the __global__ kernels,
    # the device seam with its CUDA and simulated implementations, the host engine.
    "kernels/thread": ["cpu"],
    "kernels/simt":   ["cpu", "kernels/thread"],
    "kernels/warp":   ["cpu", "kernels/thread", "kernels/simt"],
    "kernels/block":  ["cpu", "kernels/thread", "kernels/simt", "kernels/warp"],
    "kernels/global": ["cpu", "kernels/thread", "kernels/simt", "kernels/warp", "kernels/block"],
    "kernels/device": ["cpu", "kernels/thread", "kernels/simt", "kernels/warp", "kernels/block", "kernels/global"],
    "kernels/host":   ["cpu", "kernels/thread", "kernels/device"],
    "provctx":        ["cpu", "kernels/host"],
    "route":          ["cpu", "kernels/host", "kernels/device", "provctx"],
    "composite":      ["cpu", "provctx"],                        # being added
    "bulk":           ["cpu", "kernels/host", "provctx", "route", "include"],  # the bulk C API (being added)
    "keymgmt":        ["cpu", "cpu/falcon", "provctx", "composite"],
    "encoders":       ["cpu", "cpu/falcon", "provctx", "composite", "keymgmt"],
    "provider":       ["cpu", "cpu/falcon", "kernels/host", "provctx", "route", "composite", "keymgmt", "encoders"],
}
# Files that belong to a layer other than their folder's (none today: each
# file sits in its layer's folder).
FILE_LAYER = {}
# Above every layer: these may include anything, including each other's helpers.
TOP = ["tests", "bench", "tools", "examples"]
# Folders that hold no layer's sources (documentation, packaging, CMake, CI).
NOT_LAYERS = ["docs", "packaging", "scripts", "cmake"]

SOURCE_EXT = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path):
    if path in FILE_LAYER:
        return FILE_LAYER[path]
    parts = path.split("/")
    if len(parts) > 2 and "/".join(parts[:2]) in LAYERS:
        return "/".join(parts[:2])
    return parts[0]


def resolve(root, src, inc):
    for base in (os.path.dirname(src), "", "include"):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    # Every top-level folder but those without C/C++/CUDA sources of the
    # layers: a new folder's includes are checked too (and need a row).
    tops = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
                  and not d.startswith(("build", ".")) and d not in NOT_LAYERS)
    bad, checked = [], 0
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = [d for d in dirnames if not d.startswith(("build", "."))]
            for name in sorted(filenames):
                if not name.endswith(SOURCE_EXT):
                    continue
                src = os.path.relpath(os.path.join(dirpath, name), root)
                src_layer = layer_of(src)
                with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        dst = resolve(root, src, m.group(1))
                        if dst is None:
                            continue
                        checked += 1
                        dst_layer = layer_of(dst)
                        if src_layer in TOP or dst_layer == src_layer:
                            continue
                        if src_layer not in LAYERS:
                            bad.append(f"{src}:{lineno}: folder {src_layer}/ has no row in LAYERS")
                        elif dst_layer not in LAYERS[src_layer]:
                            bad.append(f"{src}:{lineno}: {src_layer} includes {dst} ({dst_layer}): "
                                       "not allowed by LAYERS (an include pointing up?)")
    for b in bad:
        print(b)
    if checked == 0:
        print("no includes found: wrong root?", root)
        return 1
    print(f"{checked} includes checked, {len(bad)} against the layer order")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
