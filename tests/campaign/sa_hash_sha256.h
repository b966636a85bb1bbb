/* SHA-256 (FIPS 180-4), incremental: init, add bytes, hex digest (which
 * ends the hash). For tests/campaign/sa_answer_hashes.c. */
#ifndef IBSM_TESTS_CAMPAIGN_SA_HASH_SHA256_H
#define IBSM_TESTS_CAMPAIGN_SA_HASH_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha {
	uint32_t h[8];
	uint8_t buf[64];
	uint64_t len;
};

void sha_init(struct sha *s);
void sha_add(struct sha *s, const uint8_t *p, size_t n);
/* The digest as 64 hex digits and a NUL. */
void sha_hex(struct sha *s, char out[65]);

#endif
