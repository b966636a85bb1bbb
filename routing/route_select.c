/* Choosing the tables to program (route_select.h has the policy). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../core/log.h"
#include "path_sl.h"
#include "route_select.h"

const char *route_pass_name(enum route_pass p)
{
	static const char *const name[ROUTE_PASS_N] = {
		"none", "refused", "credit_loop", "incomplete", "loop",
	};
	return p < ROUTE_PASS_N ? name[p] : "?";
}

const char *route_grade_name(enum route_grade g)
{
	static const char *const name[] = {
		"verified", "credit_loop", "partial", "unusable",
	};
	return g <= ROUTE_GRADE_UNUSABLE ? name[g] : "?";
}

enum route_grade route_grade_of(const struct verify_result *vr, int layered,
				int layer_loop)
{
	/* A packet that circles, leaves by an unlinked port or reaches the
	 * wrong end port is worse than one that is dropped at once: such
	 * tables are never programmed. */
	if (vr->pairs_looping || vr->forwarding_loops || vr->bad_port_entries ||
	    vr->misdelivered_entries || vr->duplicate_lids)
		return ROUTE_GRADE_UNUSABLE;
	if (vr->missing_entries || vr->pairs_unreachable ||
	    vr->endpoints_without_lid)
		return ROUTE_GRADE_PARTIAL;
	if (layered ? layer_loop : vr->credit_loop)
		return ROUTE_GRADE_CREDIT_LOOP;
	return ROUTE_GRADE_VERIFIED;
}

int route_cand_better(enum route_grade ga, const struct verify_result *a,
		      enum route_grade gb, const struct verify_result *b)
{
	if (ga != gb)
		return ga < gb;
	if (ga != ROUTE_GRADE_PARTIAL)
		return 0;
	/* Partial tables: a deadlock stops every flow that shares the loop's
	 * links; an unreachable pair stops only itself. */
	if (!a->credit_loop != !b->credit_loop)
		return !a->credit_loop;
	if (a->pairs_unreachable != b->pairs_unreachable)
		return a->pairs_unreachable < b->pairs_unreachable;
	return a->missing_entries < b->missing_entries;
}

/* One engine's result: its tables and what they were judged. */
struct cand {
	const struct route_engine *e;
	struct lft_set t;
	struct route_memo memo;
	struct path_sl sl;
	struct verify_result vr;
	enum route_grade grade;
	int refused;
	char why[256];                  /* refused: the engine's reason */
	uint32_t layers;
	char layer_why[160];
};

static void cand_free(struct cand *c)
{
	lft_free(&c->t);
	route_memo_free(&c->memo);
	path_sl_free(&c->sl);
	memset(c, 0, sizeof(*c));
}

static void cand_swap(struct cand *a, struct cand *b)
{
	struct cand x = *a;

	*a = *b;
	*b = x;
}

/* Run e into c (emptied first). Returns 0 (c->refused or c->grade set) or
 * a negative errno when verification could not run. */
static int cand_run(struct cand *c, const struct route_engine *e,
		    const struct fabric *f, const struct route_options *opt,
		    const struct verify_opts *vo, int use_prev, int use_spare)
{
	struct route_options o = { 0 };
	int r;

	cand_free(c);
	c->e = e;
	if (opt)
		o = *opt;
	if (!use_prev) {
		o.prev = NULL;
		o.prev_fab = NULL;
		o.prev_memo = NULL;
	}
	if (!use_spare)
		o.spare = NULL;
	o.memo_out = &c->memo;
	/* A layered engine allocates the SLs it fills (dfsp: path_sl_alloc
	 * on sl_out, which would leak memory given to it); for the others
	 * the caller still gets a table, every SL 0. */
	o.sl_out = opt && opt->sl_out ? &c->sl : NULL;
	r = route_run(e, f, &o, &c->t, c->why);
	if (r < 0) {
		c->refused = 1;
		c->grade = ROUTE_GRADE_UNUSABLE;
		return 0;
	}
	if (o.sl_out && !c->sl.sl && path_sl_alloc(&c->sl, f) < 0)
		return -ENOMEM;
	r = verify_routes(f, &c->t, vo, &c->vr);
	if (r < 0)
		return r;
	int layered = o.sl_out && c->sl.vls_used > 1, loop = 0;
	if (layered) {
		/* One dependency graph per SL must be acyclic; the one-VL
		 * verdict does not apply. */
		loop = path_sl_check(f, &c->t, &c->sl, &c->layers, c->layer_why,
				     sizeof(c->layer_why));
		if (loop < 0)
			return loop;
	}
	c->grade = route_grade_of(&c->vr, layered, loop);
	return 0;
}

static enum route_pass pass_of(const struct cand *c)
{
	if (c->refused)
		return ROUTE_PASS_REFUSED;
	switch (c->grade) {
	case ROUTE_GRADE_VERIFIED: return ROUTE_PASS_NONE;
	case ROUTE_GRADE_CREDIT_LOOP: return ROUTE_PASS_CREDIT_LOOP;
	case ROUTE_GRADE_PARTIAL: return ROUTE_PASS_INCOMPLETE;
	default: return ROUTE_PASS_LOOP;
	}
}

/* What is wrong with c's tables, in one line. */
static void cand_fault(const struct cand *c, char *buf, size_t len)
{
	const struct verify_result *v = &c->vr;

	if (c->refused) {
		snprintf(buf, len, "%s", c->why);
		return;
	}
	switch (c->grade) {
	case ROUTE_GRADE_CREDIT_LOOP:
		if (c->layers > 1)
			snprintf(buf, len, "credit loop in an SL layer: %.160s", c->layer_why);
		else
			snprintf(buf, len, "credit loop: %.256s", v->cdg_cycle);
		break;
	case ROUTE_GRADE_PARTIAL:
		snprintf(buf, len, "%llu missing entries, %llu unreachable pairs: %.256s",
			 (unsigned long long)v->missing_entries,
			 (unsigned long long)v->pairs_unreachable, v->first_error);
		break;
	default:
		snprintf(buf, len, "%llu looping pairs, %llu forwarding loops, %llu entries into unlinked ports, %llu misdelivered: %.256s",
			 (unsigned long long)v->pairs_looping,
			 (unsigned long long)v->forwarding_loops,
			 (unsigned long long)v->bad_port_entries,
			 (unsigned long long)v->misdelivered_entries, v->first_error);
		break;
	}
}

static void log_pass(const struct cand *c, const char *fault)
{
	if (c->refused) {
		log_warn("routing engine '%s' refused the fabric: %s", c->e->name, fault);
	} else if (c->grade == ROUTE_GRADE_CREDIT_LOOP &&
		   (c->e->flags & ROUTE_ENGINE_DEADLOCK_FREE)) {
		log_err("tables from %s have a credit loop (%s): this engine promises none, this is a bug; passing it over",
			c->e->name, fault);
	} else if (c->grade == ROUTE_GRADE_CREDIT_LOOP) {
		log_warn("tables from %s have a credit loop (%s): passing it over for a deadlock-free engine",
			 c->e->name, fault);
	} else {
		log_err("tables from %s fail verification (%s): passing it over",
			c->e->name, fault);
	}
}

/* Run e, and once more without the previous tables when it follows them
 * and its result is not verified; c keeps the better of the two. */
static int cand_run_engine(struct cand *c, struct cand *tmp,
			   const struct route_engine *e, const struct fabric *f,
			   const struct route_options *opt,
			   const struct verify_opts *vo, int use_spare,
			   struct route_choice *out)
{
	char fault[640];
	int r = cand_run(c, e, f, opt, vo, 1, use_spare);

	if (r < 0 || (!c->refused && c->grade == ROUTE_GRADE_VERIFIED))
		return r;
	if (!opt || !opt->prev || !(e->flags & ROUTE_ENGINE_USES_PREV))
		return 0;
	cand_fault(c, fault, sizeof(fault));
	log_warn("routing engine '%s' from the previous tables: %s; routing again without them",
		 e->name, fault);
	out->repairs_redone++;
	r = cand_run(tmp, e, f, opt, vo, 0, 0);
	if (r < 0)
		return r;
	if (c->refused || (!tmp->refused &&
			   route_cand_better(tmp->grade, &tmp->vr, c->grade, &c->vr)))
		cand_swap(c, tmp);
	cand_free(tmp);
	return 0;
}

int route_select(const char *names, const struct fabric *f,
		 const struct route_options *opt, const struct verify_opts *vo,
		 struct lft_set *t, struct route_choice *out)
{
	struct verify_opts v = *vo;
	struct cand best = { 0 }, cur = { 0 }, tmp = { 0 };
	struct route_list_iter it;
	const struct route_engine *e;
	char fault[640];
	int r = 0, runs = 0, taken = 0;

	memset(out, 0, sizeof(*out));
	v.check_credit_loops = 1;
	if (route_list_begin(&it, names) < 0)
		return -EINVAL;
	while ((e = route_list_next(&it))) {
		if (!out->preferred[0])
			snprintf(out->preferred, sizeof(out->preferred), "%s", e->name);
		if (runs)
			log_warn("falling back to routing engine '%s'", e->name);
		r = cand_run_engine(&cur, &tmp, e, f, opt, &v, runs == 0, out);
		runs++;
		if (r < 0)
			goto out;
		if (!cur.refused && cur.grade == ROUTE_GRADE_VERIFIED) {
			cand_swap(&best, &cur);
			taken = 1;
			break;
		}
		enum route_pass why = pass_of(&cur);
		cand_fault(&cur, fault, sizeof(fault));
		log_pass(&cur, fault);
		out->passed[why]++;
		if (out->reason == ROUTE_PASS_NONE) {
			out->reason = why;
			snprintf(out->reason_why, sizeof(out->reason_why), "%.*s",
				 (int)sizeof(out->reason_why) - 1, fault);
		}
		if (!cur.refused && cur.grade < ROUTE_GRADE_UNUSABLE &&
		    (!best.e || route_cand_better(cur.grade, &cur.vr, best.grade, &best.vr)))
			cand_swap(&best, &cur);
		cand_free(&cur);
	}
	if (!taken && best.e)
		taken = 1;
	if (!taken) {
		/* Every engine passed over was logged; the caller says what
		 * it does without tables. */
		if (!runs)
			log_err("no known routing engine in \"%s\"", names);
		r = 0;
		goto out;
	}
	out->engine = best.e;
	out->grade = best.grade;
	out->vr = best.vr;
	out->sl_layers = best.layers;
	snprintf(out->layer_why, sizeof(out->layer_why), "%s", best.layer_why);
	/* A clean first choice leaves no reason even after a repair retry. */
	if (best.grade == ROUTE_GRADE_VERIFIED && !strcmp(best.e->name, out->preferred)) {
		out->reason = ROUTE_PASS_NONE;
		out->reason_why[0] = 0;
	}
	*t = best.t;
	memset(&best.t, 0, sizeof(best.t));
	if (opt && opt->memo_out) {
		route_memo_free(opt->memo_out);
		*opt->memo_out = best.memo;
		memset(&best.memo, 0, sizeof(best.memo));
	}
	if (opt && opt->sl_out) {
		path_sl_free(opt->sl_out);
		*opt->sl_out = best.sl;
		memset(&best.sl, 0, sizeof(best.sl));
	}
	r = 1;
out:
	cand_free(&best);
	cand_free(&cur);
	cand_free(&tmp);
	if (r <= 0 && opt && opt->memo_out)
		route_memo_free(opt->memo_out);
	return r;
}
