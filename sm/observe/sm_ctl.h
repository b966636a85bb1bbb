/* The operator's control socket (ibsmctl): a UNIX stream socket at
 * ctl_socket, mode 0660 (group ctl_group when set); a peer must be root,
 * the daemon's user or in ctl_group (SO_PEERCRED). One request line per
 * connection ("[json] COMMAND ARGS"), one answer: "ok" or "error: why"
 * on the first line, then the body. Served from the SM's idle loop, never
 * blocking it for long: a client that does not send its line within
 * 200 ms is dropped. Commands: help, status, top [N], holds,
 * avoid GUID PORT [REASON], restore GUID PORT, resweep, dump. */
#ifndef IBSM_SM_SM_CTL_H
#define IBSM_SM_SM_CTL_H

#include <stddef.h>

struct sm;

/* Listen when ctl_socket is set. 0, or -1 (logged). */
int sm_ctl_start(struct sm *sm);
void sm_ctl_stop(struct sm *sm);
/* Answer the connections waiting now (from the idle loop). */
void sm_ctl_tick(struct sm *sm);
/* Answer one request line into out (a memstream); 0 ok, -1 error. For
 * tests and for the socket. */
int sm_ctl_command(struct sm *sm, const char *line, char **out, size_t *len);

#endif
