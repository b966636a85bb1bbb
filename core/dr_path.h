/* A directed route (IBA 14.2.2.1): the ports a directed-route SMP leaves
 * by, hop after hop. Plain data, so the subnet model (core/subnet.h) can
 * hold the route to every node without knowing about MADs; mad/smp.h
 * builds SMPs from it. */
#ifndef IBSM_CORE_DR_PATH_H
#define IBSM_CORE_DR_PATH_H

#include <stdint.h>

#define SMP_MAX_HOPS 63                 /* DR path holds 64 bytes (IBA 14.2.2.1) */

/* Initial path of a directed-route SMP: port[1..hops] are the ports to leave
 * by at each hop (port[0] is unused, as in the wire format). */
struct smp_path {
	uint8_t hops;
	uint8_t port[SMP_MAX_HOPS + 1];
};

#endif
