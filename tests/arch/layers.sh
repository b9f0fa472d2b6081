#!/bin/bash
# layers.sh — the layer rule of docs/architecture.md as a test: a folder under
# src/ may include only its own headers and those of the layers below it
# (cli -> server/sync -> api -> node -> search -> aggs -> fetch -> query -> index ->
# store/text/json, script -> json -> util).
# Prints every offending #include and exits 1 if there is one.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
declare -A allowed=(
  [util]="util"
  [json]="json util"
  [script]="script json util"
  [text]="text util"
  [store]="store util"
  [index]="index store text json util"
  [query]="query index store text script json util"
  [fetch]="fetch query index store text script json util"
  [aggs]="aggs fetch query index store text script json util"
  [search]="search aggs fetch query index store text script json util"
  [node]="node search aggs fetch query index store text script json util"
  [api]="api node search aggs fetch query index store text script json util"
  [server]="server api node search aggs fetch query index store text script json util"
  [sync]="sync api node search aggs fetch query index store text script json util"
  [cli]="cli server sync api node search aggs fetch query index store text script json util"
)
bad=0 checked=0
for dir in "$top"/src/*/; do
  layer=$(basename "$dir")
  if [ -z "${allowed[$layer]+x}" ]; then
    echo "layers: src/$layer is not a known layer (add it to tests/arch/layers.sh and docs/architecture.md)"
    bad=1
    continue
  fi
  while IFS=: read -r file line inc; do
    [ -n "$file" ] || continue
    target=$(sed -E 's/.*#include "([a-z]+)\/.*/\1/' <<<"$inc")
    checked=$((checked + 1))
    case " ${allowed[$layer]} " in
      *" $target "*) ;;
      *) echo "layers: ${file#$top/}:$line includes $target/, above $layer"; bad=1 ;;
    esac
  done < <(grep -rnE '#include "[a-z]+/' "$dir" --include='*.c' --include='*.h')
done
echo "layers: $checked cross-folder includes checked"
exit $bad
