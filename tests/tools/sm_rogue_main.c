/* sm-rogue: a misbehaving subnet manager for tests of SM election and
 * SM_Key / M_Key checks (issue 10). It never sweeps or programs anything;
 * it only speaks SMInfo.
 *
 *   sm-rogue [-C ca] [-P port] listen [--priority N] [--state S]
 *            [--sm-key HEX] [--flap] [--seconds N]
 *       Claims IsSM on the port (so other SMs' sweeps find it) and answers
 *       every SubnGet/SubnSet(SMInfo) with the SMInfo given: its own port
 *       GUID, priority N (0..15), state S (notactive, discovering, standby,
 *       master) and SM_Key, whatever the requester's M_Key. --flap swaps
 *       the state between S and notactive on every answer (a flapping SM).
 *       Each SMP received prints one line:
 *         smp get|set SMInfo mod N mkey 0xHEX from lid|dr N
 *       Runs for --seconds (default 30) or until SIGTERM, then prints
 *       "answered N".
 *
 *   sm-rogue [-C ca] [-P port] set --lid N --control C [--priority N]
 *            [--state S] [--sm-key HEX] [--mkey HEX] [--no-issm]
 *       Sends one LID-routed SubnSet(SMInfo) with AttributeModifier C
 *       (1 HANDOVER, 2 ACKNOWLEDGE, 3 DISABLE, 4 STANDBY, 5 DISCOVER) and
 *       the SMInfo given, carrying M_Key --mkey. Prints "status 0xNNNN" and
 *       the answered "guid/priority/state/sm_key/act_count" and exits 0 on
 *       status 0, 3 on an error status, 4 with no answer; 2 on bad
 *       arguments. --no-issm: the port does not claim IsSM (an ordinary
 *       host with the diag tools).
 *
 * It uses ibsm's own MAD transport (mad/): the fields are libibmad's. */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>

#include "core/log.h"
#include "mad/mad_transport.h"
#include "mad/smp.h"
#include "tests/tools/tool_util.h"

static const char PROG[] = "sm-rogue";

struct rogue {
	struct mad_transport *t;
	struct smp_sminfo si;
	int flap;
	uint8_t base_state;
	unsigned answered;
	int got;                    /* set mode: 1 answered, -1 no answer */
	uint16_t status;
	struct smp_sminfo reply;
};

static void usage(void)
{
	fprintf(stderr, "usage: sm-rogue [-C ca] [-P port] listen [--priority N] [--state S]\n"
		"                [--sm-key HEX] [--flap] [--seconds N]\n"
		"   or: sm-rogue [-C ca] [-P port] set --lid N --control C [--priority N]\n"
		"                [--state S] [--sm-key HEX] [--mkey HEX] [--no-issm]\n"
		"S: notactive, discovering, standby or master\n");
	exit(2);
}

static uint8_t state_num(const char *s)
{
	static const char *const names[] = { "notactive", "discovering",
					     "standby", "master" };

	for (unsigned i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return (uint8_t)i;
	fprintf(stderr, "sm-rogue: --state: '%s' is not notactive, discovering, standby or master\n", s);
	exit(2);
}

static void on_request(void *ctx, uint8_t *mad, uint16_t slid, uint32_t sqp)
{
	struct rogue *r = ctx;
	unsigned attr = (unsigned)mad_get_field(mad, 0, IB_MAD_ATTRID_F);
	uint8_t method = smp_method(mad);
	int dr = smp_class(mad) == SMP_CLASS_DR;

	if (attr != IB_ATTR_SMINFO ||
	    (method != IB_MAD_METHOD_GET && method != IB_MAD_METHOD_SET))
		return;
	printf("smp %s SMInfo mod %u mkey 0x%016llx from %s %u\n",
	       method == IB_MAD_METHOD_GET ? "get" : "set", smp_mod(mad),
	       (unsigned long long)mad_get_field64(mad, 0, IB_MAD_MKEY_F),
	       dr ? "dr" : "lid",
	       dr ? (unsigned)mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F) : slid);
	fflush(stdout);
	if (r->flap)
		r->si.state = r->answered % 2 ? SMP_SM_NOTACTIVE : r->base_state;
	/* Ignore any control a Set carries, answer like a Get. */
	smp_make_response(mad, 0);
	smp_set_sminfo(smp_data(mad), &r->si);
	if (mt_respond(r->t, mad, dr ? 0xffff : slid, sqp) == 0)
		r->answered++;
}

static void on_set_done(void *ctx, uint64_t cookie, const uint8_t *req,
			const uint8_t *resp)
{
	struct rogue *r = ctx;

	(void)cookie;
	(void)req;
	if (!resp) {
		r->got = -1;
		return;
	}
	r->got = 1;
	r->status = smp_status(resp);
	smp_get_sminfo(resp + 64, &r->reply);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Leave through exit(): libumad2sim's exit handler disconnects us from
 * ibsim. A client left connected keeps its IsSM claim in ibsim until a
 * later request to it fails, and then ibsim clears IsSM on the port for
 * every client there (the next rogue on that node included). That handler
 * can hang (see tools/ibsm_main.c): an alarm ends the process then. */
static void leave(int code)
{
	fflush(stdout);
	fflush(stderr);
	alarm(5);
	exit(code);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "priority", required_argument, NULL, 'p' },
		{ "state", required_argument, NULL, 's' },
		{ "sm-key", required_argument, NULL, 'k' },
		{ "mkey", required_argument, NULL, 'm' },
		{ "flap", no_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 't' },
		{ "lid", required_argument, NULL, 'l' },
		{ "control", required_argument, NULL, 'c' },
		{ "no-issm", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	struct mt_port_sel sel = { 0 };
	struct mt_opts mo = { .window = 4, .timeout_ms = 200, .retries = 2 };
	struct rogue r = { .si = { .priority = 15, .state = SMP_SM_MASTER } };
	unsigned seconds = 30, control = 0;
	uint16_t lid = 0;
	uint64_t mkey = 0;
	const char *mode;
	int c;

	while ((c = getopt_long(argc, argv, "+C:P:", lo, NULL)) != -1) {
		switch (c) {
		case 'C': sel.ca = optarg; break;
		case 'P': sel.port = (int)tool_num(PROG, "-P", optarg, 254); break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	mode = argv[optind];
	optind++;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': r.si.priority = (uint8_t)tool_num(PROG, "--priority", optarg, 15); break;
		case 's': r.si.state = state_num(optarg); break;
		case 'k': r.si.sm_key = tool_num(PROG, "--sm-key", optarg, UINT64_MAX); break;
		case 'm': mkey = tool_num(PROG, "--mkey", optarg, UINT64_MAX); break;
		case 'f': r.flap = 1; break;
		case 't': seconds = (unsigned)tool_num(PROG, "--seconds", optarg, 86400); break;
		case 'l': lid = (uint16_t)tool_num(PROG, "--lid", optarg, 0xbfff); break;
		case 'c': control = (unsigned)tool_num(PROG, "--control", optarg, 255); break;
		case 'n': mo.no_issm = 1; break;
		default: usage();
		}
	}
	if (optind != argc || (strcmp(mode, "listen") && strcmp(mode, "set")))
		usage();
	if (!strcmp(mode, "set") && (!lid || !control)) {
		fprintf(stderr, "sm-rogue: set needs --lid and --control\n");
		exit(2);
	}
	log_set_prog("sm-rogue");
	log_set_level(LOG_WARN);
	if (mt_open(&r.t, &sel, &mo) < 0) {
		fprintf(stderr, "sm-rogue: cannot open the port\n");
		leave(1);
	}
	r.si.guid = mt_port_guid(r.t);
	r.base_state = r.si.state;
	mt_set_mkey(r.t, mkey);
	/* Only the listener answers SMInfo: the sender's port also claims
	 * IsSM (mt_open), and a master sweeping meanwhile would see it. */
	if (!strcmp(mode, "listen"))
		mt_set_request_handler(r.t, on_request, &r);

	if (!strcmp(mode, "listen")) {
		double end = tool_now_ms() / 1e3 + seconds;

		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
		while (!stop && tool_now_ms() / 1e3 < end)
			if (mt_poll(r.t, 100) < 0)
				break;
		printf("answered %u\n", r.answered);
		mt_close(r.t);
		leave(0);
	}

	uint8_t data[64] = { 0 };

	smp_set_sminfo(data, &r.si);
	if (mt_submit_lid(r.t, lid, IB_MAD_METHOD_SET, IB_ATTR_SMINFO, control,
			  data, on_set_done, &r, 0) < 0 || mt_drain(r.t) < 0) {
		fprintf(stderr, "sm-rogue: cannot send SubnSet(SMInfo) to LID %u\n", lid);
		leave(1);
	}
	if (r.got <= 0) {
		printf("no answer\n");
		mt_close(r.t);
		leave(4);
	}
	printf("status 0x%04x\nguid 0x%016llx\npriority %u\nstate %u\nsm_key 0x%016llx\nact_count %u\n",
	       r.status, (unsigned long long)r.reply.guid, r.reply.priority,
	       r.reply.state, (unsigned long long)r.reply.sm_key,
	       r.reply.act_count);
	mt_close(r.t);
	leave(r.status ? 3 : 0);
}
