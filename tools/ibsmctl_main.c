/* ibsmctl: the operator's command line for a running ibsm, over its
 * control socket (ctl_socket; sm/observe/sm_ctl.h has the protocol). */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../core/grow.h"

#define DEFAULT_SOCKET "/run/ibsm/ibsm.sock"

static void usage(FILE *out)
{
	fputs("usage: ibsmctl [-s SOCKET] [--json] COMMAND [ARGS]\n"
	      "Talk to a running ibsm over its control socket (ctl_socket).\n"
	      "\n"
	      "  status                     SM state, fabric summary, sweeps, PerfMgr\n"
	      "  top [N]                    the N ports with most errors (default 10)\n"
	      "  holds                      links held out of routing\n"
	      "  avoid GUID PORT [REASON]   route around a link (it stays up)\n"
	      "  disable GUID PORT [REASON] take a link end down (Disabled) and route around it\n"
	      "  restore GUID PORT          bring it back (Polling) and route over it again\n"
	      "  resweep                    heavy sweep now\n"
	      "  dump                       write the dumps, print their directory\n"
	      "\n"
	      "  -s, --socket PATH          default " DEFAULT_SOCKET "\n"
	      "  -j, --json                 JSON output\n"
	      "  -t, --timeout S            wait this long for the answer (default 30)\n"
	      "Exit status: 0 ok, 1 the daemon refused, 2 cannot reach it.\n", out);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = DEFAULT_SOCKET;
	char line[600], *resp = NULL;
	int json = 0, timeout_s = 30, opt, fd;
	size_t used = 0, got = 0;
	uint32_t cap = 0;
	struct sockaddr_un a;
	char *body;

	while ((opt = getopt_long(argc, argv, "+s:jt:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's': path = optarg; break;
		case 'j': json = 1; break;
		case 't': timeout_s = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	used = (size_t)snprintf(line, sizeof(line), "%s", json ? "json" : "");
	for (int i = optind; i < argc; i++) {
		int w = snprintf(line + used, sizeof(line) - used, "%s%s",
				 used ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(line) - used - 1) {
			fprintf(stderr, "ibsmctl: command too long\n");
			return 2;
		}
		used += (size_t)w;
	}
	line[used++] = '\n';
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "ibsmctl: socket path too long\n");
		return 2;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "ibsmctl: cannot reach ibsm at %s: %s (is ctl_socket set?)\n",
			path, strerror(errno));
		return 2;
	}
	if (write(fd, line, used) != (ssize_t)used) {
		fprintf(stderr, "ibsmctl: %s: write: %s\n", path, strerror(errno));
		return 2;
	}
	/* The daemon answers from its idle loop: during a heavy sweep that
	 * may take seconds. */
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, timeout_s * 1000) <= 0) {
			fprintf(stderr, "ibsmctl: no answer from %s in %d s\n", path, timeout_s);
			free(resp);
			return 2;
		}
		/* room for a 4 KB read and the final NUL */
		if (got > UINT32_MAX - 4097 ||
		    grow_array((void **)&resp, &cap, (uint32_t)got + 4097, 1, 65536)) {
			fprintf(stderr, "ibsmctl: out of memory\n");
			free(resp);
			return 2;
		}
		n = read(fd, resp + got, cap - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!resp) {
		fprintf(stderr, "ibsmctl: %s closed without an answer\n", path);
		return 2;
	}
	resp[got] = 0;
	if (!strncmp(resp, "error: ", 7)) {
		fprintf(stderr, "ibsmctl: %s", resp + 7);
		free(resp);
		return 1;
	}
	body = strncmp(resp, "ok\n", 3) ? resp : resp + 3;
	fputs(body, stdout);
	free(resp);
	return 0;
}
