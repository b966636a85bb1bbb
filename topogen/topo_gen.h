/* Topology generators: build fabric graphs of the shapes AI and HPC clusters
 * are cabled as. `ibsm-topo` writes them as ibsim net files; tests and
 * benchmarks call these directly. The first node is always a CA (where an SM
 * attaches in a real cluster). Node descriptions say what a node is:
 * "node-17", "leaf-3", "spine-1", "core-0", "torus-2-1-0" ("mesh-..."),
 * "df-g4-s2", "rr-12", "MF0;director-1:CS7500/L05/U1". Conventions: docs/topologies.md. */
#ifndef IBSM_TOPOGEN_TOPO_GEN_H
#define IBSM_TOPOGEN_TOPO_GEN_H

#include <stdint.h>
#include "../core/fabric.h"

struct fattree_params {
	unsigned levels;        /* 2 or 3 */
	unsigned radix;         /* switch ports (even, >= 4) */
	unsigned oversub;       /* X in X:1 at the leaves; 1 = full bisection */
	double remove_frac;     /* fraction of switch-switch links removed */
	uint64_t seed;          /* for removals */
	unsigned hcas;          /* 0 = as many as the tree holds, else cap */
	int shuffle_hosts;      /* cable each leaf's CAs to its ports in a
				 * seeded random order (names stay leaf-major) */
};

/* Director switches as spines (topogen/topo_gen_director.c): D chassis of N
 * line ASICs and R/2 fabric ASICs each, D*N (or `leaves`) leaf switches. */
struct director_params {
	unsigned directors;     /* D, must divide radix / 2 */
	unsigned radix;         /* R, every ASIC and leaf (even, >= 4) */
	unsigned line_asics;    /* N per director, 2..R; 0 = R */
	unsigned leaves;        /* 0 = D * N (every external port used) */
	double remove_frac;     /* fraction of switch-switch links removed */
	uint64_t seed;          /* for removals and shuffle_hosts */
	int shuffle_hosts;
};

struct torus_params {
	unsigned dims;          /* 2 or 3 */
	unsigned size[3];       /* switches per dimension */
	int wrap;               /* 1 torus, 0 mesh */
	unsigned hcas_per_switch;
};

struct dragonfly_params {
	unsigned groups;        /* g */
	unsigned switches_per_group; /* a */
	unsigned hcas_per_switch;    /* p */
	unsigned global_per_switch;  /* h */
};

struct random_params {
	unsigned switches;
	unsigned degree;        /* switch-switch links per switch */
	unsigned hcas_per_switch;
	uint64_t seed;
};

/* Each returns 0 (f initialised and filled) or -EINVAL with a message in
 * err (size >= 256) saying which parameter is wrong. */
int gen_fattree(struct fabric *f, const struct fattree_params *p, char *err);
int gen_director(struct fabric *f, const struct director_params *p, char *err);
int gen_torus(struct fabric *f, const struct torus_params *p, char *err);
int gen_dragonfly(struct fabric *f, const struct dragonfly_params *p, char *err);
int gen_random(struct fabric *f, const struct random_params *p, char *err);

/* Make a generated fabric look cabled by people (topogen/topo_gen_real.c),
 * deterministic per seed; both return 0 or a negative errno.
 * gen_random_guids: every node gets a random GUID under a real vendor OUI
 * (CA port p: node + p; a switch's ports share its GUID; nodes sharing a
 * SystemImageGUID, as a director's ASICs do, still share a new one); all
 * node, port and system GUIDs distinct.
 * gen_shuffle_ports: on every switch, the ports not cabled to a CA
 * (switch-to-switch links and dark ports) swap numbers at random; the graph
 * is unchanged, only which port number carries which cable. */
int gen_random_guids(struct fabric *f, uint64_t seed);
int gen_shuffle_ports(struct fabric *f, uint64_t seed);

#endif
