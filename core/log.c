/* Logging sink. The only mutable state is the sink's configuration, set once
 * at start-up by main. */
#include "log.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

static enum log_level cur_level = LOG_INFO;
static FILE *cur_stream;
static const char *cur_prog = "ibsm";

void log_set_level(enum log_level level) { cur_level = level; }
enum log_level log_get_level(void) { return cur_level; }
void log_set_stream(FILE *stream) { cur_stream = stream; }
void log_set_prog(const char *prog) { cur_prog = prog; }

int log_level_parse(const char *s)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]) || (s[0] == '0' + i && !s[1]))
			return i;
	return -1;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const tags[] = { "error", "warn", "info", "debug" };
	if (level > cur_level)
		return;
	FILE *out = cur_stream ? cur_stream : stderr;
	if (cur_stream) {
		struct timespec ts;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		char when[32];
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(out, "%s.%03ld ", when, ts.tv_nsec / 1000000);
	}
	fprintf(out, "%s: %s: ", cur_prog, tags[level]);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
}
