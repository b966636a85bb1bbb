/* The Prometheus endpoint's HTTP side (libmicrohttpd): GET /metrics
 * answers with the text last published by the SM's thread. The server
 * runs in libmicrohttpd's own thread and never touches SM state, so a
 * scrape is answered at once even during a long sweep, and sees one
 * consistent snapshot. */
#ifndef IBSM_SM_METRICS_HTTP_H
#define IBSM_SM_METRICS_HTTP_H

#include <stddef.h>

struct metrics_http;

/* "ADDR:PORT" (IPv4) or ":PORT" / "PORT" (every address). 0 or -1. */
int metrics_parse_listen(const char *s, unsigned *addr_be, unsigned short *port);
/* What one scraper, or many, may hold (issue 26: 40 slow connections
 * from one host took all 16 slots for 10 s each and scrapes timed out).
 * libmicrohttpd serves every connection from one polling thread, so a
 * slow client costs a slot, not the others' time: bound the slots per
 * address, the slots in all, and how long an idle or slow connection
 * keeps one. */
struct metrics_limits {
	unsigned max_conns;         /* metrics_max_connections */
	unsigned per_ip;            /* metrics_per_ip_connections */
	unsigned timeout_s;         /* metrics_timeout: idle or slow request */
};

/* Start listening. NULL after logging why. */
struct metrics_http *metrics_http_start(const char *listen,
					const struct metrics_limits *lim);
void metrics_http_stop(struct metrics_http *m);
/* Replace the text served (copied). */
void metrics_http_publish(struct metrics_http *m, const char *text, size_t len);
/* Scrapes answered so far. */
unsigned long metrics_http_scrapes(struct metrics_http *m);

#endif
