/* Logging: one sink (stderr by default, or a file), levels, and a
 * monotonic clock for phase timings. Errors are reported once, at the edge. */
#ifndef IBSM_CORE_LOG_H
#define IBSM_CORE_LOG_H

#include <stdio.h>
#include <time.h>

enum log_level { LOG_ERR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Log to this stream instead of stderr (NULL restores stderr). */
void log_set_stream(FILE *stream);
/* Prefix every line with this program name ("ibsm", "ibsm-route"). */
void log_set_prog(const char *prog);
/* Parse "error", "warn", "info", "debug" (or 0..3). Returns -1 if unknown. */
int log_level_parse(const char *s);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* Seconds on CLOCK_MONOTONIC. Inline: the SM's loop reads it every turn
 * (issue 27: the call was a tenth of the turn's own instructions). */
static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
