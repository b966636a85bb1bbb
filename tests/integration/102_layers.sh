#!/bin/sh
# The layers of docs/design.md hold (scripts/layers.sh): every include of
# the production code points down the drawing or along a sideways arrow
# the table names. Then the check itself, on a small tree made to break
# each rule once: an arrow up, an unnamed sideways one, an include of
# nothing, an undrawn folder, a drawn empty one, table rows without a
# reason or without a use; tests/ and named arrows pass.
# Needs no build.
. "$(dirname "$0")/sm_lib.sh"
test_start 102

t0=$(date +%s%N)
sh "$top/scripts/layers.sh" "$top" >"$W/tree.out" 2>&1 || { cat "$W/tree.out"; fail "the tree breaks its layers"; }
t1=$(date +%s%N)
cat "$W/tree.out"
echo "ok the tree holds ($(( (t1 - t0) / 1000000 )) ms)"

# A tree of its own: top/ over mid1/ mid2/ mid3/ over low/ empty/.
T=$W/t
mkdir -p "$T/docs" "$T/top" "$T/mid1" "$T/mid2" "$T/mid3" "$T/low" "$T/extra" "$T/tests"
cat >"$T/docs/design.md" <<'EOF'
# t

## Layers

```
top/            (the top)
 |
mid1/ mid2/ mid3/   (a middle tier)
 |
low/ empty/
```

### Sideways arrows

| from | to | why |
|---|---|---|
| mid1/ | mid2/ | a reason |
| mid3/ | mid1/ | a reason no include needs |
| mid2/ | mid3/ | |

## Other
| mid1/ | mid3/ | a row outside the table's section names nothing |
EOF
printf '#include "../mid1/a.h"\n#include "mid2/b.h"\n' >"$T/top/t.c"
: >"$T/top/t.h"
printf '#include "../low/l.h"\n' >"$T/mid1/a.h"
printf '#include "a.h"\n#include "../mid2/b.h"\n  #  include "../mid3/c.h"\n' >"$T/mid1/a.c"
: >"$T/mid2/b.h"
printf '#include "missing.h"\n' >"$T/mid2/b.c"
: >"$T/mid3/c.h"
: >"$T/low/l.h"
printf '#include <stdio.h>\n#include "../top/t.h"\n' >"$T/low/l.c"
: >"$T/extra/e.c"
printf '#include "../top/t.h"\n' >"$T/tests/x.c"

sh "$top/scripts/layers.sh" "$T" >"$W/t.out" 2>&1
rc=$?
cat "$W/t.out"
[ $rc = 1 ] || fail "exit $rc on a broken tree, want 1"
for want in \
	'layers: up: low/l.c:2 includes top/t.h (low/ is below top/)' \
	'layers: sideways: mid1/a.c:3 includes mid3/c.h (mid1/ and mid3/ share a tier; docs/design.md names no mid1/ -> mid3/)' \
	'layers: unresolved: mid2/b.c:1 includes "missing.h" (no such production file)' \
	'layers: not drawn: extra/ holds sources and is in no tier of docs/design.md' \
	'layers: drawn but empty: empty/ holds no sources' \
	'layers: docs/design.md: sideways mid2/ -> mid3/ names no reason' \
	'layers: named but unused: mid3/ -> mid1/ (docs/design.md), no include takes it' \
	'layers: named but unused: mid2/ -> mid3/ (docs/design.md), no include takes it' \
	'layers: 8 problem(s)'; do
	grep -qxF "$want" "$W/t.out" || fail "no line: $want"
done
[ "$(grep -c . "$W/t.out")" = 9 ] || fail "more lines than the 8 problems and the count"
echo "ok a broken tree: each rule caught once"

# Mended (arrow up gone, sideways named, include found, folders drawn
# and filled, rows used or gone), it passes.
printf '#include <stdio.h>\n' >"$T/low/l.c"
: >"$T/mid2/missing.h"
mkdir -p "$T/empty" && : >"$T/empty/x.c"
sed -i -e 's/^low\/ empty\/$/low\/ empty\/ extra\//' \
	-e 's/^| mid3\/ | mid1\/ .*/| mid1\/ | mid3\/ | a reason |/' \
	-e '/^| mid2\/ | mid3\/ |/d' "$T/docs/design.md"
sh "$top/scripts/layers.sh" "$T" >"$W/t2.out" 2>&1 || { cat "$W/t2.out"; fail "a mended tree fails"; }
cat "$W/t2.out"
grep -q 'along the 2 sideways arrows' "$W/t2.out" || fail "two named arrows expected"
echo "ok a mended tree passes"
