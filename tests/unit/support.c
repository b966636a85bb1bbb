/* Helpers the unit tests share: see support.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>

#include "core/lid_assign.h"
#include "core/subnet.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"

void ut_link(struct fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	assert_int_equal(fab_link(f, fab_port_idx(f, a, pa), fab_port_idx(f, b, pb)), 0);
}

void ut_fattree(struct fabric *f, const struct fattree_params *p, uint8_t lmc)
{
	struct lid_assign_opts lo = { .lmc = lmc };
	char err[256];

	assert_int_equal(gen_fattree(f, p, err), 0);
	assert_true(lid_assign(f, &lo, NULL) >= 0);
}

void ut_ring(struct fabric *f, unsigned n, unsigned hcas, unsigned step)
{
	uint32_t *sw = malloc(n * sizeof(*sw));

	assert_non_null(sw);
	fab_init(f);
	for (unsigned i = 0; i < n; i++)
		sw[i] = fab_add_node(f, FAB_SWITCH, 8, 0x1000 + i * step % n, "ring");
	for (unsigned i = 0; i < n; i++)
		ut_link(f, sw[i], 1, sw[(i + 1) % n], 2);
	for (unsigned i = 0; i < n; i++)
		for (unsigned h = 0; h < hcas; h++) {
			uint32_t c = fab_add_node(f, FAB_CA, 1, 0x9000 + i * 8 + h, "ca");

			ut_link(f, sw[i], 3 + h, c, 1);
		}
	free(sw);
}

void ut_subnet_arrays(struct subnet *r)
{
	const struct fabric *f = &r->fab;

	r->cap_nodes = f->num_nodes;
	r->cap_ports = f->num_ports;
	r->node_info = calloc(f->num_nodes, 64);
	r->sw_info = calloc(f->num_nodes, 64);
	r->port_info = calloc(f->num_ports, 64);
	r->port_info_ok = calloc(f->num_ports, 1);
	assert_non_null(r->node_info);
	assert_non_null(r->sw_info);
	assert_non_null(r->port_info);
	assert_non_null(r->port_info_ok);
}

int ut_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void ut_write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static const char *tmp_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

void ut_tmp_path(char *buf, size_t n, const char *tag)
{
	snprintf(buf, n, "%s/ibsm-test-%s-%d", tmp_dir(), tag, (int)getpid());
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

void ut_rm_tree(const char *dir)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

void ut_temp_file(char *buf, size_t n, const char *tag, const char *text)
{
	int fd;

	snprintf(buf, n, "%s/ibsm-test-%s.XXXXXX", tmp_dir(), tag);
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	close(fd);
	ut_write_file(buf, text ? text : "", text ? strlen(text) : 0);
}

char *ut_slurp(const char *path)
{
	FILE *in = fopen(path, "r");
	char *buf;
	size_t n;

	assert_non_null(in);
	buf = calloc(1, 1 << 20);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, in);
	buf[n] = 0;
	fclose(in);
	return buf;
}
