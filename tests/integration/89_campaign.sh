#!/bin/sh
# The randomized fabric campaign (issue 24), its fixed make-check set:
# the 42 fabrics of tests/campaign/check.list (every family: 2- and
# 3-level trees intact and degraded, directors, dragonfly, torus/mesh,
# random graphs, the dumps in tests/data; random GUIDs, shuffled ports,
# LMC 0/1), each brought up by the ibsm daemon under ibsim, judged with
# ibnetdiscover + iblinkinfo + dump_fts (ibsm-route --lfts-in --check
# --cdg-switch-lids: every pair routed, no credit loop through switch
# LIDs), then 3 seeded faults (link loss/return, switch loss, 20% MAD
# loss near the SM, SM restart), judged after each. Four lanes, each its
# own ibsim (the lanes mostly wait: 0.45 CPU for 4 lanes, measured). A
# failure names the fabric and a one-line reproducer.
. "$(dirname "$0")/sm_lib.sh"
export IBSM_BUILD
exec sh "$top/tests/campaign/campaign.sh" --list "$top/tests/campaign/check.list" \
	--faults 3 -j "${CAMP_LANES:-4}"
