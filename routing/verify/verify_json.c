/* The verifier's verdict as one JSON object, one key per line, keys in a
 * fixed order (scripts read it with a JSON parser or a line grep). */
#include <inttypes.h>
#include <stdio.h>

#include "../verify.h"

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void u64(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, "  \"%s\": %" PRIu64 ",\n", key, v);
}

static void dbl(FILE *out, const char *key, double v)
{
	fprintf(out, "  \"%s\": %.4f,\n", key, v);
}

void verify_print_json(FILE *out, const struct verify_result *r)
{
	fputs("{\n", out);
	fprintf(out, "  \"ok\": %s,\n", r->ok ? "true" : "false");
	u64(out, "switches", r->num_switches);
	u64(out, "terminals", r->num_terminals);
	u64(out, "lids_total", r->lids_total);
	u64(out, "missing_entries", r->missing_entries);
	u64(out, "missing_to_switches", r->missing_to_switches);
	u64(out, "bad_port_entries", r->bad_port_entries);
	u64(out, "misdelivered_entries", r->misdelivered_entries);
	u64(out, "duplicate_lids", r->duplicate_lids);
	u64(out, "endpoints_without_lid", r->endpoints_without_lid);
	u64(out, "pairs_checked", r->pairs_checked);
	u64(out, "pairs_unreachable", r->pairs_unreachable);
	u64(out, "pairs_looping", r->pairs_looping);
	u64(out, "forwarding_loops", r->forwarding_loops);
	u64(out, "loops_to_switches", r->loops_to_switches);
	u64(out, "max_hops", r->max_hops);
	dbl(out, "avg_hops", r->avg_hops);
	dbl(out, "avg_stretch", r->avg_stretch);
	dbl(out, "max_stretch", r->max_stretch);
	fprintf(out, "  \"credit_loop\": %s,\n", r->credit_loop ? "true" : "false");
	u64(out, "cdg_channels", r->cdg_channels);
	u64(out, "cdg_edges", r->cdg_edges);
	fputs("  \"cdg_cycle\": ", out);
	json_string(out, r->cdg_cycle);
	fputs(",\n", out);
	u64(out, "a2a_max_link_load", r->a2a_max_link_load);
	dbl(out, "a2a_lower_bound", r->a2a_lower_bound);
	dbl(out, "a2a_ratio", r->a2a_ratio);
	u64(out, "a2a_max_switch_link_load", r->a2a_max_switch_link_load);
	dbl(out, "a2a_switch_bound", r->a2a_switch_bound);
	dbl(out, "a2a_switch_ratio", r->a2a_switch_ratio);
	u64(out, "shifts_checked", r->shifts_checked);
	u64(out, "shift_worst_load", r->shift_worst_load);
	u64(out, "shift_worst", r->shift_worst);
	u64(out, "shifts_congested", r->shifts_congested);
	u64(out, "diversity_pairs", r->diversity_pairs);
	dbl(out, "min_disjoint_paths", r->min_disjoint_paths);
	dbl(out, "avg_disjoint_paths", r->avg_disjoint_paths);
	dbl(out, "verify_seconds", r->seconds);
	u64(out, "verify_threads", r->threads);
	fputs("  \"first_error\": ", out);
	json_string(out, r->first_error);
	fputs(",\n  \"errors\": [", out);
	for (uint32_t i = 0; i < r->num_errors && i < VERIFY_MAX_ERRORS; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_string(out, r->errors[i]);
	}
	fputs(r->num_errors ? "\n  ]\n}\n" : "]\n}\n", out);
}
