#!/bin/sh
# Hashes of every byte the SA sends for a fixed list of requests (issue 27:
# a faster SA must answer byte-identically), the SA's counterpart of
# table_hashes.sh. build/tests/sa_answer_hashes (make tests) sweeps three
# generated fabrics with the daemon's SM over the in-process fake SMAs and
# asks its SA every served attribute (Get, GetTable by LID and by every
# single component, trusted and not, Set/Delete, GetMulti, malformed MADs),
# reading RMPP answers to their last segment. OUT gets one line per
# (fabric, attribute, request group): "FABRIC ATTR GROUP requests=N
# mads=M bytes=B sha256", sorted, then the coverage line. Offline, about a
# second. Compare two runs with diff (baseline of main:
# /work/wt/notes/sa-hash-base.txt; a line that differs names the group).
#
#   sa_hashes.sh BUILD OUT
set -u
[ $# -ge 2 ] || { echo "usage: sa_hashes.sh BUILD OUT" >&2; exit 2; }
prog=$1/tests/sa_answer_hashes
[ -x "$prog" ] || { echo "sa_hashes: no $prog (make tests)" >&2; exit 2; }
tmp=$(mktemp /tmp/sa_hashes.XXXXXX)
trap 'rm -f "$tmp"' EXIT INT TERM
"$prog" >"$tmp" || { echo "sa_hashes: $prog failed" >&2; exit 1; }
{ grep -v '^#' "$tmp" | LC_ALL=C sort; grep '^#' "$tmp"; } >"$2"
echo "sa_hashes: $(grep -vc '^#' "$2") groups, $(grep '^#' "$2" | cut -c3-), in $2"
