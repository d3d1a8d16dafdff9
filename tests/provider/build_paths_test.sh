#!/bin/sh
# build_paths_test.sh MODULE SOURCE_DIR - the module's read-only data (where
# the file names of its error records live) names no file by the absolute
# path it was built from: every layer compiles with -fmacro-prefix-map.
module="$1"
src="$2"
command -v readelf >/dev/null 2>&1 || { echo "skipped: no readelf"; exit 77; }
found=$(readelf -p .rodata "$module" | grep -F "$src/")
if [ -n "$found" ]; then
  echo "absolute build paths in $module:"
  echo "$found"
  exit 1
fi
echo "no path under $src/ in .rodata"
