/* A fabric in the test process: an SMA model of every node of a struct
 * fabric, and a wire for the MAD transport (mt_open_wire) that carries the
 * SM's SMPs to them. The SM, discovery and the programming phases then run
 * as they do on a real port (queue, window, TIDs, timeouts, retries), in
 * milliseconds and without ibsim. docs/testing.md shows how to use it.
 *
 * What the SMAs do (IBA 14.2.5, as a switch or CA would):
 *   Get  NodeInfo, NodeDescription, SwitchInfo, PortInfo, P_KeyTable,
 *        SLtoVLMappingTable, VLArbitrationTable, LinearForwardingTable,
 *        MulticastForwardingTable; SMInfo where fake_sma_add_sm put an SM.
 *   Set  the same but NodeInfo/NodeDescription, keeping what a Set writes:
 *        PortInfo's writable fields (read-only ones stay; 0 = no change in
 *        PortState, PortPhysicalState, OperationalVLs, LinkWidth/Speed
 *        Enabled), PortState INIT -> ARMED -> ACTIVE (anything else is
 *        refused whole with status 0x1C), Down: both ends retrain to INIT,
 *        PortPhysicalState Disabled / Polling; SwitchInfo's LinearFDBTop,
 *        LifeTimeValue, default ports, PortStateChange (write 1 clears).
 *   other attributes and methods: status 0x0C (not supported).
 * Directed-route SMPs go through the graph by port (IBA 14.2.2: the
 * initial path out, the return path filled with the ports entered, hop
 * pointer); a path through a CA, out of an unlinked or Down port, or into
 * a dead or silent node is dropped (the transport times it out).
 * LID-routed SMPs follow the switches' LFTs there and back; GMPs (SA,
 * PerfMgt) are counted and dropped.
 *
 * Fault knobs: drop the next N requests of an attribute, drop a share of
 * all requests (seeded), a silent node (its SMA answers nothing and
 * forwards nothing, links stay up: a hung SMA), a dead node (powered off:
 * its links go down, its neighbour switches set PortStateChange and send
 * trap 128). */
#ifndef IBSM_TESTS_FAKE_SMA_H
#define IBSM_TESTS_FAKE_SMA_H

#include <stdint.h>
#include "../../core/fabric.h"
#include "../../mad/mad_transport.h"

struct fake_sma;

/* A model of f (copied: later changes to f do not reach it) with the SM on
 * port sm_port of CA sm_node. Every linked port starts INIT / LinkUp with
 * LID 0, unlinked ones Down / Polling; LFTs hold 0xFF. NULL on no memory
 * or a bad SM port. */
struct fake_sma *fake_sma_new(const struct fabric *f, uint32_t sm_node,
			      uint8_t sm_port);
void fake_sma_free(struct fake_sma *s);

/* A transport over the fake (mt_close it before fake_sma_free). opts may
 * be NULL: window 16, timeout 5 ms, 2 retries. */
int fake_sma_open(struct fake_sma *s, const struct mt_opts *opts,
		  struct mad_transport **out);

/* Another SM: a transport attached at port `port` of CA node (its port
 * gets IsSM). SMInfo Gets and Sets that reach that port go to it, the
 * answers it sends go back to whichever SM asked; when an SM's query
 * reaches it, the fake runs its transport (mt_poll) until it has handled
 * it, as its own loop would on its own host. Traps go to the switch's
 * MasterSMLID. -EINVAL: not a free CA port, or 4 SMs already. */
int fake_sma_open_at(struct fake_sma *s, uint32_t node, uint8_t port,
		     const struct mt_opts *opts, struct mad_transport **out);

/* The model's fabric (node and port indices as in the f given). */
const struct fabric *fake_sma_fabric(const struct fake_sma *s);
uint64_t fake_sma_port_guid(const struct fake_sma *s, uint32_t port);

/* State the SM wrote. PortInfo: 64 raw bytes of port index p (libibmad
 * IB_PORT_*_F fields). LFT entry of switch node n for lid (0xFF unset). */
const uint8_t *fake_sma_portinfo(const struct fake_sma *s, uint32_t p);
const uint8_t *fake_sma_switchinfo(const struct fake_sma *s, uint32_t n);
uint8_t fake_sma_lft(const struct fake_sma *s, uint32_t n, uint32_t lid);
/* The LID of port index p as programmed (a switch port: its port 0's). */
uint16_t fake_sma_lid(const struct fake_sma *s, uint32_t p);
/* SL2VL table (8 bytes, two VLs a byte, IBA 14.2.5.8) of a switch from
 * port in to port out, or of CA port `in` (out ignored); VLArb block
 * 1..4 of port index p (64 bytes). */
const uint8_t *fake_sma_sl2vl(const struct fake_sma *s, uint32_t n,
			      unsigned in, unsigned out);
const uint8_t *fake_sma_vlarb(const struct fake_sma *s, uint32_t p,
			      unsigned block);
/* P_Key entry i of port index p (0 past the table). */
uint16_t fake_sma_pkey(const struct fake_sma *s, uint32_t p, unsigned i);

/* Requests the SMAs received (answered or not, drops excluded) by method
 * (IB_MAD_METHOD_GET / _SET) and attribute; 0, 0 counts all. */
unsigned fake_sma_count(const struct fake_sma *s, uint8_t method, uint16_t attr);
unsigned fake_sma_dropped(const struct fake_sma *s);
unsigned fake_sma_gmps(const struct fake_sma *s);
void fake_sma_reset_counts(struct fake_sma *s);

/* Fault knobs. fake_sma_drop: the next n requests of attr (0: any) and
 * method (0: any) are lost on their way. fake_sma_loss: each request is
 * lost with probability permille/1000, from a seeded generator. */
void fake_sma_drop(struct fake_sma *s, uint16_t attr, uint8_t method,
		   unsigned n);
void fake_sma_loss(struct fake_sma *s, unsigned permille, uint64_t seed);
void fake_sma_silence(struct fake_sma *s, uint32_t node, int silent);
/* Power node off: its links go Down (the far ends Down / Polling, their
 * switches' PortStateChange set and a trap 128 sent to the SM from each
 * such switch once it knows the SM's LID). */
void fake_sma_kill(struct fake_sma *s, uint32_t node);

/* Another SM on port `port` of CA node: IsSM in its PortInfo, and SMInfo
 * Gets answered with guid, priority, state (enum smp_sm_state), an
 * ActCount that moves by one per answer, and sm_key when the Get carried
 * it (else 0, IBA 14.4.1). */
int fake_sma_add_sm(struct fake_sma *s, uint32_t node, uint8_t port,
		    uint64_t guid, uint64_t sm_key, uint8_t priority,
		    uint8_t state);

#endif
