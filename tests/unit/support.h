/* Helpers the unit tests share (tests/unit/X.c that are not test_*.c are
 * linked into every test by the Makefile): fabric builders that assert as
 * they go, temp files, and qsort's comparison of u64s. Built on cmocka:
 * include after <cmocka.h>'s prerequisites. */
#ifndef IBSM_TESTS_UNIT_SUPPORT_H
#define IBSM_TESTS_UNIT_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/fabric.h"

/* Room for a scratch file's name (ut_tmp_path, ut_temp_file). */
#define UT_PATH_MAX 256

struct fattree_params;
struct subnet;

/* fab_link of A's port PA and B's port PB, asserted to succeed. */
void ut_link(struct fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb);

/* gen_fattree(P) into F, then LIDs with LMC (lid_assign): both asserted. */
void ut_fattree(struct fabric *f, const struct fattree_params *p, uint8_t lmc);

/* N switches in a ring (8 ports: port 1 to the next one's port 2), HCAS
 * CAs on ports 3.. of each. Switch i has GUID 0x1000 + i * STEP % N (a
 * STEP prime to N spreads the GUID order round the ring), CA h of switch
 * i 0x9000 + i * 8 + h. No LIDs. */
void ut_ring(struct fabric *f, unsigned n, unsigned hcas, unsigned step);

/* The MAD arrays of a subnet (node_info, sw_info, port_info,
 * port_info_ok), zeroed and sized for r->fab as it stands. */
void ut_subnet_arrays(struct subnet *r);

/* qsort order of uint64_t. */
int ut_cmp_u64(const void *a, const void *b);

/* LEN bytes of DATA into PATH (created or truncated), asserted. */
void ut_write_file(const char *path, const void *data, size_t len);

/* A name for a scratch file of this process: $TMPDIR (or /tmp) +
 * "/ibsm-test-TAG-PID", in BUF of N bytes. The caller unlinks it. */
void ut_tmp_path(char *buf, size_t n, const char *tag);

/* A new file from mkstemp ($TMPDIR or /tmp, "ibsm-test-TAG.XXXXXX")
 * holding TEXT (NULL: empty); its name in BUF of N bytes. The caller
 * unlinks it. */
void ut_temp_file(char *buf, size_t n, const char *tag, const char *text);

/* Remove DIR and everything under it (a test's cache directory); a
 * missing DIR is no error. */
void ut_rm_tree(const char *dir);

/* PATH's text (up to 1 MiB), NUL-ended, asserted readable; free() it. */
char *ut_slurp(const char *path);

#endif
