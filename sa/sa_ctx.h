/* What every SA attribute handler sees (sa/sa_handler.h): the database,
 * who we are, and hooks into the parts of the SM the SA reports on. The
 * SA server owns one; the SM fills it. */
#ifndef IBSM_SA_SA_CTX_H
#define IBSM_SA_SA_CTX_H

#include <stdint.h>
#include "sa_db.h"
#include "sa_quota.h"
#include "sa_service.h"
#include "sa_inform.h"
#include "sa_sl2vl.h"

struct mft_held;
struct part_tables;
struct qos_policy;
struct qos_sl_space;

/* SM_Key 1 is OpenSM's default and ours: every diag tool knows it
 * (saquery --smkey 1), so it proves nothing about a requester. */
#define SA_SM_KEY_WELL_KNOWN 1

struct sa_sm_identity {
	uint64_t guid;              /* our port GUID */
	uint64_t sm_key;
	uint32_t act_count;
	uint16_t lid;
	uint8_t priority, state;    /* SMInfo.Priority, SMState */
};

struct sa_ctx {
	struct sa_db db;
	struct sa_sm_identity sm;
	uint8_t packet_life_time;   /* PathRecord PacketLifeTime */
	uint8_t subnet_timeout;     /* ClassPortInfo.RespTimeValue */
	/* The SL of the path slid -> dlid (IBA 15.2.5.16); NULL: SL 0.
	 * Engines that use virtual lanes supply it. */
	uint8_t (*path_sl)(void *arg, uint16_t slid, uint16_t dlid);
	void *path_sl_arg;
	/* The QoS policy PathRecords follow (qos/qos_policy.h, docs/qos.md);
	 * NULL: QoS off, SLs as OpenSM gives them without -Q. */
	const struct qos_policy *qos;
	/* With QoS and layered paths both on (qos/qos_sl_space.h): a path's
	 * SL is its class base + the layer path_sl gives; NULL: the layer. */
	const struct qos_sl_space *sl_space;
	/* P_Key tables of the database's ports (partition/part_table.h);
	 * NULL or empty: every port holds the default partition 0xFFFF. */
	const struct part_tables *parts;
	void *mcast;                /* multicast groups (multicast/), when built */
	const struct mft_held *mft; /* MFTs as programmed (multicast/mft_program.h) */
	struct sa_service_db services;  /* registered ServiceRecords */
	struct sa_quota quota;          /* per-port limits on what hosts keep */
	struct sa_inform_db informs;    /* event subscriptions (InformInfo) */
	struct sa_sl2vl_cache sl2vl;    /* SL2VL tables read or programmed */
	struct sa_sl2vl_cache vlarb;    /* VLArb blocks read or programmed */
};

#endif
