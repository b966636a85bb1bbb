#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "guid_list.h"
#include "log.h"

int guid_list_load(const char *path, uint64_t **out, char *err,
		   size_t errlen)
{
	FILE *fp = fopen(path, "r");
	uint64_t *v = NULL;
	uint32_t n = 0, cap = 0;
	unsigned line = 0;
	char buf[256];
	int rc = -EINVAL;

	*out = NULL;
	if (!fp) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	while (fgets(buf, sizeof(buf), fp)) {
		line++;
		if (!strchr(buf, '\n') && !feof(fp)) {
			snprintf(err, errlen, "%s:%u: line too long", path, line);
			goto fail;
		}
		buf[strcspn(buf, "#")] = 0;
		char *p = buf + strspn(buf, " \t\r\n"), *end;
		if (!*p)
			continue;
		errno = 0;
		uint64_t g = strtoull(p, &end, 0);
		if (end == p || errno || *p == '-' || *p == '+' ||
		    end[strspn(end, " \t\r\n")]) {
			p[strcspn(p, "\r\n")] = 0;
			snprintf(err, errlen, "%s:%u: not a GUID: %.40s", path,
				 line, p);
			goto fail;
		}
		if (grow_array((void **)&v, &cap, n + 1, sizeof(*v), 64)) {
			rc = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
			goto fail;
		}
		v[n++] = g;
	}
	if (ferror(fp)) {
		rc = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto fail;
	}
	fclose(fp);
	*out = v;
	return (int)n;
fail:
	fclose(fp);
	free(v);
	return rc;
}

int guid_list_read(const char *path, uint64_t **out, uint32_t *count)
{
	char err[512];
	int n = guid_list_load(path, out, err, sizeof(err));

	*count = n < 0 ? 0 : (uint32_t)n;
	if (n < 0) {
		log_err("%s", err);
		return n;
	}
	return 0;
}
