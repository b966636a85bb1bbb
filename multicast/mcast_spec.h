/* Multicast groups predefined in the configuration (key mcast_groups): one
 * group per entry, "MGID[, key=value]...", keys pkey, qkey, mtu and rate,
 * MTU and rate in the IBA encodings OpenSM's partitions.conf uses too
 * (mtu 1=256 .. 5=4096; rate 2=2.5, 3=10, 4=30, 5=5, 6=20, 7=40, 8=60,
 * 9=80, 10=120, 11=14, 12=56, 13=112, 14=168, 15=25, 16=100, 17=200,
 * 18=300 Gb/s). Parsing only; the SM creates the groups. */
#ifndef IBSM_MULTICAST_MCAST_SPEC_H
#define IBSM_MULTICAST_MCAST_SPEC_H

#include <stddef.h>
#include <stdint.h>

struct mcast_spec {
	uint8_t mgid[16];
	uint16_t pkey;              /* default 0xFFFF */
	uint32_t qkey;              /* default 0x0B1B, the IPoIB Q_Key */
	uint8_t mtu;                /* default 4 (2048) */
	uint8_t rate;               /* default 3 (10 Gb/s) */
};

/* Parse one entry. Returns 0, or -EINVAL with the reason in err. */
int mcast_spec_parse(const char *text, struct mcast_spec *out, char *err,
		     size_t errlen);
/* Parse a ';'-separated list (the joined YAML sequence): calls fn for each
 * entry, in order. Returns the number of entries, or -EINVAL with
 * "entry N: reason" in err. */
int mcast_spec_list(const char *list,
		    int (*fn)(void *ctx, const struct mcast_spec *s), void *ctx,
		    char *err, size_t errlen);

#endif
