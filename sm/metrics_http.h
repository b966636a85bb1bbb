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
/* Start listening. NULL after logging why. */
struct metrics_http *metrics_http_start(const char *listen);
void metrics_http_stop(struct metrics_http *m);
/* Replace the text served (copied). */
void metrics_http_publish(struct metrics_http *m, const char *text, size_t len);
/* Scrapes answered so far. */
unsigned long metrics_http_scrapes(struct metrics_http *m);

#endif
