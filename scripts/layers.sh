#!/bin/sh
# The layering check: every #include "..." of the production code (every
# .c/.h/.inc outside tests/) points down docs/design.md's layer drawing, or
# sideways along an arrow its "Sideways arrows" table names with a reason.
#   sh scripts/layers.sh [TOP]     TOP: the tree to check (default: this one)
# The drawing is read, not copied: its first fenced block under "## Layers"
# gives one tier a line, top first; the folders of a line are its words
# ending in '/' before the first '('. A row of the table is
# "| from/ | to/ | why |". An include resolves as the compiler does here:
# beside the including file, else from TOP (-I.).
# Fails (exit 1) listing every include that points up, every sideways one
# the table does not name, every include that resolves to nothing in the
# production tree, every folder of sources the drawing leaves out, and
# every folder or table row that is drawn but not there (so the drawing
# stays true). Prints one summary line when all holds.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
doc=docs/design.md
[ -r "$doc" ] || { echo "layers: no $doc in $top" >&2; exit 2; }

# The production sources: not tests/, build trees or hidden folders.
files=$(find . \( -path ./tests -o -name 'build*' -o -name '.?*' \) -prune -o \
	-type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) -print |
	sed 's|^\./||' | LC_ALL=C sort)
[ -n "$files" ] || { echo "layers: no sources under $top" >&2; exit 2; }

{
	printf '%s\n' "$files" | sed 's/^/F /'
	printf '%s\n' "$files" | tr '\n' '\0' |
		xargs -0 grep -H -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
		sed 's/^/I /'
} | awk -v doc="$doc" '
function fail(msg) { print "layers: " msg; bad++ }
# a/b/../c -> a/c; ./ dropped.
function norm(p,    n, i, k, part, out) {
	n = split(p, part, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "" || part[i] == ".") continue
		if (part[i] == "..") { if (k > 0) k--; else return "../" }
		else st[++k] = part[i]
	}
	out = ""
	for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") st[i]
	return out
}
function folder(p) { sub(/\/.*/, "", p); return p }
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
BEGIN {
	# The drawing and the table, from docs/design.md.
	while ((getline line < doc) > 0) {
		if (line ~ /^## /) { inlayers = (line ~ /^## Layers/); intable = 0 }
		if (line ~ /^#+ Sideways arrows/) { intable = 1; continue }
		else if (line ~ /^#/) intable = 0
		if (inlayers && line ~ /^```/) {
			if (drawn) inlayers = 0
			fence = !fence; drawn = 1; continue
		}
		if (inlayers && fence) {
			t = line; sub(/\(.*/, "", t)
			n = split(t, w, /[ \t]+/); got = 0
			for (i = 1; i <= n; i++)
				if (w[i] ~ /^[a-z0-9_]+\/$/) {
					f = w[i]; sub(/\/$/, "", f)
					rank[f] = tiers; got = 1
				}
			if (got) tiername[tiers++] = trim(t)
		}
		if (intable && line ~ /^\|/) {
			n = split(line, c, "|")
			from = trim(c[2]); to = trim(c[3]); why = trim(c[4])
			gsub(/`/, "", from); gsub(/`/, "", to)
			if (from !~ /^[a-z0-9_]+\/$/ || to !~ /^[a-z0-9_]+\/$/) continue
			sub(/\/$/, "", from); sub(/\/$/, "", to)
			if (why == "") fail(doc ": sideways " from "/ -> " to "/ names no reason")
			named[from SUBSEP to] = 1; rows++
		}
	}
	if (!tiers) { fail(doc ": no layer drawing under \"## Layers\""); exit }
}
$1 == "F" { have[$2] = 1; nsrc++; has_src[folder($2)] = 1; next }
$1 == "I" {
	rest = substr($0, 3)
	i = index(rest, ":"); file = substr(rest, 1, i - 1); rest = substr(rest, i + 1)
	i = index(rest, ":"); ln = substr(rest, 1, i - 1); rest = substr(rest, i + 1)
	inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	dir = file; if (dir ~ /\//) sub(/\/[^\/]*$/, "", dir); else dir = "."
	p = norm(dir "/" inc)
	if (!(p in have)) p = norm(inc)
	nincl++
	if (!(p in have)) { fail("unresolved: " file ":" ln " includes \"" inc "\" (no such production file)"); next }
	a = folder(file); b = folder(p)
	if (a == b) next
	across++
	if (!(a in rank) || !(b in rank)) next    # said once per folder below
	if (rank[a] > rank[b])
		fail("up: " file ":" ln " includes " p " (" a "/ is below " b "/)")
	else if (rank[a] == rank[b]) {
		if ((a SUBSEP b) in named) used[a SUBSEP b] = 1
		else fail("sideways: " file ":" ln " includes " p " (" a "/ and " b "/ share a tier; " doc " names no " a "/ -> " b "/)")
	}
}
END {
	if (!tiers) exit 1
	for (f in has_src)
		if (!(f in rank)) fail("not drawn: " f "/ holds sources and is in no tier of " doc)
	for (f in rank)
		if (!(f in has_src)) fail("drawn but empty: " f "/ holds no sources")
	for (k in named)
		if (!(k in used)) {
			split(k, ab, SUBSEP)
			fail("named but unused: " ab[1] "/ -> " ab[2] "/ (" doc "), no include takes it")
		}
	if (bad) { print "layers: " bad " problem(s)"; exit 1 }
	printf "layers: %d sources, %d includes, %d across folders: all down %d tiers or along the %d sideways arrows %s names\n", \
		nsrc, nincl, across, tiers, rows, doc
}'
