#!/bin/bash
# Builds the native peers of bench/fulltext: OUT/xapian-peer (Xapian 1.4, libxapian-dev) and
# OUT/sqlite-peer (SQLite FTS5, libsqlite3-dev).
#
#     bench/fulltext/peers/build-native.sh OUT
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi
out=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"

# libxapian-dev ships xapian-config; pkg-config is the fallback.  For sqlite3 pkg-config is the
# source, and Debian's plain -lsqlite3 the fallback when pkg-config is not installed.
if command -v xapian-config >/dev/null 2>&1; then
    xapian_cflags=$(xapian-config --cxxflags)
    xapian_libs=$(xapian-config --libs)
else
    xapian_cflags=$(pkg-config --cflags xapian-core)
    xapian_libs=$(pkg-config --libs xapian-core)
fi
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists sqlite3; then
    sqlite_cflags=$(pkg-config --cflags sqlite3)
    sqlite_libs=$(pkg-config --libs sqlite3)
else
    sqlite_cflags=
    sqlite_libs=-lsqlite3
fi

# shellcheck disable=SC2086  # the flags are word lists
g++ -O2 -std=c++17 -Wall -Wextra $xapian_cflags -o "$out/xapian-peer" "$here/xapian_peer.cc" $xapian_libs
# shellcheck disable=SC2086
gcc -O2 -std=c11 -Wall -Wextra $sqlite_cflags -o "$out/sqlite-peer" "$here/sqlite_peer.c" $sqlite_libs
