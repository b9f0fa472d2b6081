#!/bin/bash
# files.sh — every layer's header says what its rooms hold: the opening
# comment of src/<layer>/<layer>.h (everything before its #ifndef) names
# every .c file of the folder, literally or by a glob such as segment*.c.
# src/cli has no layer header (main.c is the command). Prints every file
# a header leaves out and exits 1 if there is one.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bad=0 checked=0
for dir in "$top"/src/*/; do
  layer=$(basename "$dir")
  hdr=$dir$layer.h
  if [ ! -f "$hdr" ]; then
    [ "$layer" = cli ] && continue
    echo "files: src/$layer has no header src/$layer/$layer.h"
    bad=1
    continue
  fi
  names=$(sed -n '1,/^#ifndef/p' "$hdr" | grep -oE '[a-z0-9_]+\*?[a-z0-9_]*\.c')
  for c in "$dir"*.c; do
    f=$(basename "$c")
    checked=$((checked + 1))
    found=0
    for w in $names; do
      # shellcheck disable=SC2254
      case $f in $w) found=1 ;; esac
    done
    [ $found = 1 ] || { echo "files: src/$layer/$f is not named in src/$layer/$layer.h"; bad=1; }
  done
done
echo "files: $checked files checked against their layer's header"
exit $bad
