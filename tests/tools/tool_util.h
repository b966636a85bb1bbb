/* What the test tools (tests/tools/X_main.c: sa-client, sa-fuzz, sa-load,
 * sa-table, sm-rogue) share: option numbers, a monotonic clock, and the
 * local port opened as an SA client. Errors are said once on stderr as
 * "PROG: ...", with the exit codes the tools share (2 bad arguments, 4 no
 * port, SA or answer). Linked into the test tools only (Makefile). */
#ifndef IBSM_TESTS_TOOL_UTIL_H
#define IBSM_TESTS_TOOL_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* S as a number (strtoull base 0: 0x.. hex, 0.. octal) in 0..MAX, or
 * "PROG: OPT: bad number "S"" and exit(2). */
uint64_t tool_num(const char *prog, const char *opt, const char *s, uint64_t max);

/* CLOCK_MONOTONIC in milliseconds. */
double tool_now_ms(void);

/* The local port (CA, PORT; NULL/0 the first) as an SA client. */
struct tool_sa_port {
	int fd;
	int agent;                  /* SubnAdm class version 2, RMPP on */
	uint16_t sm_lid;            /* where the SA is (the port's SM LID) */
	uint8_t sm_sl;
	uint16_t base_lid;          /* our own LID */
	size_t bufsz;               /* size of each buffer in bufs */
};

/* After umad_init: the port's SM LID, SM SL and own LID into SP (fd,
 * agent and bufsz untouched). Returns 0, or -1 once "no local IB port" or
 * "the port knows no SM LID" is said. */
int tool_sa_locate(const char *prog, const char *ca, int port,
		   struct tool_sa_port *sp);

/* umad_init, the port's SM LID (tool_sa_locate), the port opened, an SA
 * agent registered, NBUFS zeroed umad buffers of sp->bufsz in BUFS.
 * Returns 0, or -1 once the error is said. */
int tool_sa_open(const char *prog, const char *ca, int port,
		 struct tool_sa_port *sp, void **bufs, int nbufs);

#endif
