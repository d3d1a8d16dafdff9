#!/usr/bin/env bash
# fetch-cuda-tools.sh - nvdisasm for bench/gpu_model.py, from Debian 12's own
# packages, without touching the system: the CUDA toolkit this machine has
# (13.0, under /usr/local/cuda) ships no disassembler, and Debian's newest is
# 11.8's (bookworm non-free, nvidia-cuda-toolkit), which reads sm_90 SASS once
# bench/sass_count.py rewrites a CUDA 13 cubin's header.
#
# Downloads that one package with apt-get against a private sources list and
# state directory, unpacks it with dpkg -x and keeps nvdisasm alone.
# Usage: scripts/fetch-cuda-tools.sh [--dir DIR]; DIR defaults to
# ${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/cuda-tools. Prints DIR/bin/nvdisasm
# (reused when it is there already); progress goes to stderr.
set -euo pipefail
dir="${XDG_CACHE_HOME:-$HOME/.cache}/mldsa-accel/cuda-tools"
if [ "${1:-}" = "--dir" ]; then dir="$2"; fi
tool="$dir/bin/nvdisasm"
if [ -x "$tool" ] && "$tool" --version >/dev/null 2>&1; then echo "$tool"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/debs" "$dir/bin"
echo "deb http://deb.debian.org/debian bookworm non-free" >"$work/sources.list"
o=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
echo "fetch-cuda-tools: apt-get update (bookworm non-free)" >&2
apt-get "${o[@]}" update -q >&2
(cd "$work/debs" && apt-get "${o[@]}" download nvidia-cuda-toolkit >&2)
dpkg -x "$work"/debs/nvidia-cuda-toolkit_*.deb "$work/root"
install -m 0755 "$work/root/usr/bin/nvdisasm" "$tool"
"$tool" --version >&2
echo "$tool"
