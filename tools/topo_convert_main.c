/* topo-convert: read a topology file, optionally assign LIDs, write it as
 * ibnetdiscover text or Graphviz DOT.
 *
 *   topo-convert [-f auto|ibnd|net|subnet-lst] [--lids[=LMC]] [--guid2lid FILE] IN OUT
 *     OUT ending in ".dot" is written as DOT, anything else as
 *     ibnetdiscover text (which ibsim also loads). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "formats/topo_read.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "lids", optional_argument, NULL, 'l' },
		{ "guid2lid", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum topo_format fmt = TOPO_AUTO;
	int want_lids = 0, lmc = 0, c;
	const char *g2l = NULL;
	log_set_prog("topo-convert");
	while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "ibnd"))
				fmt = TOPO_IBNETDISCOVER;
			else if (!strcmp(optarg, "net"))
				fmt = TOPO_IBSIM_NET;
			else if (!strcmp(optarg, "subnet-lst") || !strcmp(optarg, "osm"))
				fmt = TOPO_OSM_SUBNET;
			else if (strcmp(optarg, "auto")) {
				fprintf(stderr, "topo-convert: unknown format %s\n", optarg);
				return 2;
			}
			break;
		case 'l':
			want_lids = 1;
			lmc = optarg ? atoi(optarg) : 0;
			if (lmc < 0 || lmc > 7) {
				fprintf(stderr, "topo-convert: LMC must be 0..7\n");
				return 2;
			}
			break;
		case 'g':
			g2l = optarg;
			want_lids = 1;
			break;
		case 'h':
			printf("usage: topo-convert [-f auto|ibnd|net|subnet-lst] [--lids[=LMC]] "
			       "[--guid2lid FILE] IN OUT[.dot]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: topo-convert [options] IN OUT\n");
		return 2;
	}
	struct fabric f;
	if (topo_read(&f, argv[optind], fmt))
		return 1;
	int r = 0;
	if (want_lids) {
		struct lid_map map, out;
		lid_map_init(&map);
		lid_map_init(&out);
		if (g2l && (r = lid_map_load(&map, g2l)) && r != -ENOENT)
			goto done;
		struct lid_assign_opts o = { .lmc = (uint8_t)lmc, .map = &map,
					     .keep_existing = 1 };
		r = lid_assign(&f, &o, &out);
		if (r < 0)
			log_err("LID assignment failed: %s", strerror(-r));
		else if (g2l)
			r = lid_map_save(&out, g2l);
		lid_map_free(&map);
		lid_map_free(&out);
		if (r < 0)
			goto done;
	}
	const char *dst = argv[optind + 1];
	r = ends_with(dst, ".dot") ? topo_write_dot(&f, dst) :
		topo_write_ibnetdiscover(&f, dst);
done:
	fab_free(&f);
	return r < 0 ? 1 : 0;
}
