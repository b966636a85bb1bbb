/* Event subscriptions (IBA 13.4.8.3, 15.2.5.12): InformInfo Set subscribes
 * a port to notices (traps forwarded from the fabric, and the SM's own:
 * GID in/out of service), InformInfoRecord lists the subscriptions, and
 * sa_inform_match finds the subscribers a notice goes to, as a Report
 * (sm/sm_report.c sends them). */
#ifndef IBSM_SA_SA_INFORM_H
#define IBSM_SA_SA_INFORM_H

#include <stdint.h>

#define SA_INFORM_LEN 36
#define SA_IIR_LEN 60
#define SA_INFORM_MAX 4096          /* subscriptions kept at most */

struct sa_subscription {
	uint8_t iir[SA_IIR_LEN];    /* InformInfoRecord, QPN as subscribed */
	uint64_t port_guid;         /* subscriber's port */
	uint16_t lid;               /* where Reports go (the request's SLID) */
	uint32_t qpn;               /* and to which QP */
	uint8_t trusted;            /* subscribed with the SM_Key */
};

struct sa_inform_db {
	struct sa_subscription *s;
	uint32_t n, cap;
	uint32_t generation;        /* bumped on every change */
};

#define SA_NOTICE_LEN 80        /* a trap SMP's 64 bytes, then IssuerGID */

/* One notice (IBA 14.2.5.1 Notice): the attribute as a Report carries it,
 * and the fields the matching needs. */
struct sa_notice {
	uint8_t raw[SA_NOTICE_LEN];
	int is_generic;
	uint8_t type;
	uint32_t producer;          /* ProducerType (generic) or VendorID */
	uint16_t trap;              /* TrapNumber (generic) or DeviceID */
	uint16_t issuer_lid;
	uint8_t issuer_gid[16];
};

/* Notice types and producers (IBA 13.4.8.2 Table 122/123). */
#define SA_NOTICE_TYPE_SUBN_MGMT 3
#define SA_NOTICE_PRODUCER_SM 4     /* class manager: the SM */

/* A trap the SM received, forwarded: the trap SMP's 64 data bytes (the
 * Notice without its IssuerGID) and the issuer's port GID. */
void sa_notice_from_trap(struct sa_notice *n, const uint8_t *smp_data,
			 const uint8_t issuer_gid[16]);
/* The SM's own notices (IBA 14.2.5.1, traps 64-67): a port's GID entered
 * (64) or left (65) service, a multicast group was created (66) or deleted
 * (67). Issued by the SM (sm_lid, sm_gid), the GID or MGID in the
 * DataDetails. */
#define SA_TRAP_GID_IN_SERVICE 64
#define SA_TRAP_GID_OUT_OF_SERVICE 65
#define SA_TRAP_MCG_CREATED 66
#define SA_TRAP_MCG_DELETED 67
void sa_notice_sm_trap(struct sa_notice *n, uint16_t trap, uint16_t sm_lid,
		       const uint8_t sm_gid[16], const uint8_t gid[16]);
/* The SubnAdm Report(Notice) MAD that carries n to a subscriber (IBA
 * 13.4.8.2; the transport fills in the TID). */
void sa_report_build(uint8_t mad[256], const struct sa_notice *n);

void sa_inform_db_free(struct sa_inform_db *db);
/* Call fn for every subscription the notice matches (GID or LID range,
 * IsGeneric, Type, TrapNumber, ProducerType, 0xFFFF... wildcards); returns
 * how many matched. Security traps (256-259) only reach subscriptions made
 * with the SM_Key. */
typedef void (*sa_inform_fn)(void *ctx, const struct sa_subscription *s);
uint32_t sa_inform_match(const struct sa_inform_db *db,
			 const struct sa_notice *n, sa_inform_fn fn, void *ctx);
/* Drop the subscriptions of ports no longer in the fabric (known(ctx,
 * guid) == 0); returns how many. */
uint32_t sa_inform_prune(struct sa_inform_db *db,
			 int (*known)(void *ctx, uint64_t guid), void *ctx);

/* Drop every subscription whose Reports go to lid; returns how many. */
uint32_t sa_inform_drop_lid(struct sa_inform_db *db, uint16_t lid);

#endif
