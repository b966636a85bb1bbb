/* /metrics over libmicrohttpd with a published snapshot. */
#include "metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "../../core/log.h"

struct metrics_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	char *text;
	size_t len;
	unsigned long scrapes;
};

int metrics_parse_listen(const char *s, unsigned *addr_be, unsigned short *port)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	char *end;
	unsigned long p;
	struct in_addr a;

	a.s_addr = htonl(INADDR_ANY);
	if (colon) {
		size_t n = (size_t)(colon - s);

		if (n >= sizeof(host))
			return -1;
		memcpy(host, s, n);
		host[n] = 0;
		if (n && inet_pton(AF_INET, host, &a) != 1)
			return -1;
		s = colon + 1;
	}
	errno = 0;
	p = strtoul(s, &end, 10);
	if (!*s || *end || errno || p == 0 || p > 65535)
		return -1;
	*addr_be = a.s_addr;
	*port = (unsigned short)p;
	return 0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	struct metrics_http *m = cls;
	struct MHD_Response *r;
	enum MHD_Result rc;
	unsigned status = MHD_HTTP_OK;

	(void)version;
	(void)upload;
	(void)upload_len;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static const char msg[] = "only GET\n";

		r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg,
						    MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (strcmp(url, "/metrics")) {
		static const char msg[] = "ibsm: metrics are at /metrics\n";

		r = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg,
						    MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_NOT_FOUND;
	} else {
		pthread_mutex_lock(&m->lock);
		r = MHD_create_response_from_buffer(m->len, m->text ? m->text : (char *)"",
						    MHD_RESPMEM_MUST_COPY);
		m->scrapes++;
		pthread_mutex_unlock(&m->lock);
	}
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type",
				"text/plain; version=0.0.4; charset=utf-8");
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

struct metrics_http *metrics_http_start(const char *listen,
					const struct metrics_limits *lim)
{
	struct metrics_http *m;
	struct sockaddr_in sa;
	unsigned addr;
	unsigned short port;

	if (metrics_parse_listen(listen, &addr, &port) < 0) {
		log_err("metrics_listen '%s': want ADDR:PORT or :PORT", listen);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = addr;
	m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL,
				port, NULL, NULL, answer, m,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_CONNECTION_LIMIT, lim->max_conns,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, lim->per_ip,
				MHD_OPTION_CONNECTION_TIMEOUT, lim->timeout_s,
				/* a request is a GET line and a few headers */
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
				MHD_OPTION_END);
	if (!m->d) {
		log_err("metrics_listen %s: cannot listen (address in use or not ours?)",
			listen);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return NULL;
	}
	log_info("metrics: serving /metrics on %s (at most %u connections, %u per address, %u s idle)",
		 listen, lim->max_conns, lim->per_ip, lim->timeout_s);
	return m;
}

void metrics_http_stop(struct metrics_http *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->d);
	pthread_mutex_destroy(&m->lock);
	free(m->text);
	free(m);
}

void metrics_http_publish(struct metrics_http *m, const char *text, size_t len)
{
	char *copy = malloc(len + 1);

	if (!copy)
		return;
	memcpy(copy, text, len);
	copy[len] = 0;
	pthread_mutex_lock(&m->lock);
	free(m->text);
	m->text = copy;
	m->len = len;
	pthread_mutex_unlock(&m->lock);
}

unsigned long metrics_http_scrapes(struct metrics_http *m)
{
	unsigned long n;

	pthread_mutex_lock(&m->lock);
	n = m->scrapes;
	pthread_mutex_unlock(&m->lock);
	return n;
}
