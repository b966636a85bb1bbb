/* Checks of generated fabrics (topogen/) shared by test_topo_gen.c and
 * test_topo_net.c; linked into every unit test (tests/unit/X.c that are
 * not test_*.c are). */
#ifndef IBSM_TESTS_UNIT_TOPO_CHECK_H
#define IBSM_TESTS_UNIT_TOPO_CHECK_H

#include <stdint.h>

#include "core/fabric.h"

/* Properties every generated fabric has (asserted): node 0 is the CA
 * "node-0", GUIDs are non-zero and unique, CAs have one port, cabled to a
 * switch, links are symmetric and not to self, and the fabric is
 * connected. */
void check_invariants(const struct fabric *f);

/* Peer node and port number of port `num` of node n. */
uint32_t tc_peer_of(const struct fabric *f, uint32_t n, unsigned num,
		 unsigned *rport);

#endif
