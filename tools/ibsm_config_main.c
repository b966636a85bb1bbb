/* ibsm-config: configuration tools. `ibsm-config import` turns an OpenSM
 * configuration into ibsm's YAML and checks that ibsm loads the result
 * (docs/opensm-users.md, ibsm-config(8)). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/log.h"
#include "../sm/config/config.h"
#include "../sm/config/osm_import.h"

static void usage(FILE *out)
{
	fputs("usage: ibsm-config import [options] OPENSM.CONF\n"
	      "Convert an OpenSM configuration into ibsm's YAML. Options ibsm cannot\n"
	      "honour are named on standard error as FILE:LINE; the YAML is checked by\n"
	      "loading it as ibsm would.\n"
	      "\n"
	      "  -p, --partitions FILE   partitions.conf (default: the conf's\n"
	      "                          partition_config_file, if it exists)\n"
	      "  -Q, --qos-policy FILE   qos-policy.conf (carried over when qos is TRUE)\n"
	      "  -o, --output FILE       write the YAML here (default standard output)\n"
	      "      --strict            exit 3 when an option is not honoured\n"
	      "  -h, --help              this text\n"
	      "Exit status: 0 converted, 1 an input could not be read or parsed, or the\n"
	      "result does not load, 2 usage, 3 --strict and options not honoured.\n", out);
}

/* The result must load as ibsm's configuration: a failure here is a bug in
 * the conversion or a value out of ibsm's range, named by the loader as
 * FILE:LINE. */
static int check_loads(const char *yaml, size_t len, const char *out_path)
{
	char tmp[] = "/tmp/ibsm-config.XXXXXX";
	const char *path = out_path;
	struct ibsm_config c;
	int fd = -1, rc;

	if (!path) {
		FILE *f;

		fd = mkstemp(tmp);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			perror("ibsm-config: temporary file");
			if (fd >= 0)
				close(fd);
			return -1;
		}
		fwrite(yaml, 1, len, f);
		fclose(f);
		path = tmp;
	}
	config_defaults(&c);
	rc = config_load_yaml(&c, path);
	if (rc == 0)
		rc = config_validate(&c);
	config_free(&c);
	if (path == tmp)
		unlink(tmp);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "partitions", required_argument, NULL, 'p' },
		{ "qos-policy", required_argument, NULL, 'Q' },
		{ "output", required_argument, NULL, 'o' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct osm_import_opts o = { 0 };
	struct osm_import_result r;
	const char *out_path = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int c, strict = 0, rc;

	log_set_prog("ibsm-config");
	if (argc < 2 || strcmp(argv[1], "import")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "p:Q:o:h", longs, NULL)) != -1) {
		switch (c) {
		case 'p': o.partitions = optarg; break;
		case 'Q': o.qos_policy = optarg; break;
		case 'o': out_path = optarg; break;
		case 's': strict = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	o.conf = argv[optind];

	mem = open_memstream(&buf, &len);
	if (!mem) {
		perror("ibsm-config");
		return 1;
	}
	rc = osm_import(&o, mem, stderr, &r);
	fclose(mem);
	if (rc < 0) {
		fprintf(stderr, "ibsm-config: %s: not converted\n", o.conf);
		free(buf);
		return 1;
	}
	if (out_path) {
		FILE *f = fopen(out_path, "w");

		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			perror(out_path);
			free(buf);
			return 1;
		}
	} else {
		fwrite(buf, 1, len, stdout);
	}
	if (check_loads(buf, len, out_path) != 0) {
		fprintf(stderr, "ibsm-config: the converted configuration does not load in ibsm (see above)\n");
		free(buf);
		return 1;
	}
	free(buf);
	fprintf(stderr, "ibsm-config: %s: %u options: %u carried, %u at OpenSM's default (ibsm's own applies), "
		"%u not honoured; %u partitions\n", o.conf, r.options, r.carried, r.at_default,
		r.not_honoured, r.partitions);
	return strict && r.not_honoured ? 3 : 0;
}
