/* Input file checks. */
#include "input_file.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"

int input_file_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		int e = errno;

		if (e != ENOENT)
			log_err("%s: %s", path, strerror(e));
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		log_err("%s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		log_err("%s: not a regular file", path);
		return -EINVAL;
	}
	return 0;
}

FILE *input_file_open(const char *path, int *rc)
{
	FILE *fp = fopen(path, "r");

	if (!fp) {
		*rc = -errno;
		log_err("%s: %s", path, strerror(-*rc));
	}
	return fp;
}

char *input_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}
