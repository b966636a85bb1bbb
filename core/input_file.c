/* Input file checks. */
#include "input_file.h"

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
