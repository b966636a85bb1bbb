/* Helpers shared by the test tools: see tool_util.h. */
#include "tests/tools/tool_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

uint64_t tool_num(const char *prog, const char *opt, const char *s, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "%s: %s: bad number \"%s\"\n", prog, opt, s);
		exit(2);
	}
	return v;
}

double tool_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int tool_sa_locate(const char *prog, const char *ca, int port,
		   struct tool_sa_port *sp)
{
	umad_port_t p;

	if (umad_get_port(ca, port, &p) < 0) {
		fprintf(stderr, "%s: no local IB port\n", prog);
		return -1;
	}
	sp->sm_lid = (uint16_t)p.sm_lid;
	sp->sm_sl = (uint8_t)p.sm_sl;
	sp->base_lid = (uint16_t)p.base_lid;
	umad_release_port(&p);
	if (!sp->sm_lid) {
		fprintf(stderr, "%s: the port knows no SM LID (no master SM)\n", prog);
		return -1;
	}
	return 0;
}

int tool_sa_open(const char *prog, const char *ca, int port,
		 struct tool_sa_port *sp, void **bufs, int nbufs)
{
	int ok;

	if (umad_init() < 0) {
		fprintf(stderr, "%s: no local IB port\n", prog);
		return -1;
	}
	if (tool_sa_locate(prog, ca, port, sp) < 0)
		return -1;
	sp->fd = umad_open_port(ca, port);
	ok = sp->fd >= 0;
	/* Slack: under ibsim, umad_size() is umad2sim's, and it need not be
	 * the same before and after the port is opened (measured: 56, 64). */
	sp->bufsz = umad_size() + IB_MAD_SIZE + 256;
	for (int i = 0; i < nbufs; i++) {
		bufs[i] = umad_alloc(1, sp->bufsz);
		ok = ok && bufs[i];
	}
	if (!ok) {
		fprintf(stderr, "%s: cannot open the local port\n", prog);
		return -1;
	}
	sp->agent = umad_register(sp->fd, IB_SA_CLASS, 2, 1, NULL);
	if (sp->agent < 0) {
		fprintf(stderr, "%s: cannot register an SA agent\n", prog);
		return -1;
	}
	return 0;
}
