/* hvsim command line: hvsim [-s seed] [-p policy] [-o name=value]...
 * [-S MS:POLICY[:name=value,...]]... [-t TRACE [-P VM:DED_MS:NORM_MS]] FILE.
 * -S switches the policy at run time at MS (hv/sched/switch.c; the same as
 * the workload's `switch` lines, merged in time order). With -t the real vProfile recorder (hv/trace) records
 * every VM from t=0 and its serial dump is written to TRACE (decode it with
 * tools/vprof). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim.h"
#include "trace/vprof.h"

/* -P VM:DED_MS:NORM_MS, seed 001 §4's sampling schedule run from one
 * command: profile VM (index) with a dedicated-mode period of DED_MS (the
 * other VMs frozen; whole accounting periods), dump, then profile it under
 * interference for NORM_MS, dump, then run to the end. `vprof predict`
 * reads the two dumps. */
static int sample_vm = -1;
static double sample_ded_ms, sample_norm_ms;

static void run_until(struct sim *s, stime_t t, stime_t end)
{
	s->duration = MIN(t, end);
	if (!s->all_done)
		sim_run(s);
}

static int sampling_run(struct sim *s)
{
	stime_t end = s->duration, t1 = SIM_MS(sample_ded_ms), t2 = t1 + SIM_MS(sample_norm_ms);
	stime_t acct = sched_sys.acct_ns > 0 ? sched_sys.acct_ns : SIM_MS(30);
	uint32_t epochs = (uint32_t)((t1 + acct - 1) / acct);
	uint16_t vm = (uint16_t)sample_vm;

	if (sample_vm >= s->nvms || vprof_dedicated_request(0, vm, 0, epochs, 0))
		return -1;
	run_until(s, t1, end);
	vprof_vm_stop(0, vm, s->now, VPD_STOP);
	vprof_vm_start(0, vm, s->now);
	run_until(s, t2, end);
	vprof_vm_stop(0, vm, s->now, VPD_STOP);
	run_until(s, end, end);
	return 0;
}

static void trace_sink(void *ctx, const char *line, size_t len)
{
	fwrite(line, 1, len, ctx);
}

/* Configure and start vProfile for every VM before the first transition. */
static int trace_start(struct sim *s, FILE *f)
{
	size_t len = vprof_mem_size((unsigned)s->npcpus, 1 << 16);
	void *mem = aligned_alloc(64, (len + 63) / 64 * 64);

	if (!mem || vprof_init((unsigned)s->npcpus, mem, len))
		return -1;
	vprof_set_sink(trace_sink, f);
	vprof_spin_set_ple((uint64_t)s->ple);   /* as vm/vprof_platform.c does */
	s->trace = true;
	for (int i = 0; i < s->nvms; i++)
		if (vprof_vm_config((uint16_t)i, (uint16_t)s->vm[i].nvcpus, i == sample_vm) ||
		    vprof_vm_start(0, (uint16_t)i, s->t0))
			return -1;
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			buf = realloc(buf, cap);
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	buf[n] = 0;
	if (f != stdin)
		fclose(f);
	return buf;
}

static void usage(void)
{
	fprintf(stderr, "usage: hvsim [-s seed] [-p policy] [-o option=value]... "
		"[-S MS:POLICY[:opt=val,...]]... [-t TRACE [-P VM:DED_MS:NORM_MS]] WORKLOAD\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *policy = NULL, *opts[32], *trace = NULL, *sws[16];
	int nsws = 0;
	FILE *tf = NULL;
	long long seed = -1;
	int c, nopt = 0;
	struct sim s;
	char err[256], *text;

	while ((c = getopt(argc, argv, "s:p:o:t:P:S:")) != -1) {
		if (c == 'S' && nsws < 16) {
			sws[nsws++] = optarg;
		} else if (c == 'P') {
			if (sscanf(optarg, "%d:%lf:%lf", &sample_vm, &sample_ded_ms,
				   &sample_norm_ms) != 3 || sample_vm < 0 || sample_ded_ms <= 0 ||
			    sample_norm_ms <= 0)
				usage();
		} else if (c == 't')
			trace = optarg;
		else if (c == 's')
			seed = strtoll(optarg, NULL, 0);
		else if (c == 'p')
			policy = optarg;
		else if (c == 'o' && nopt < 32)
			opts[nopt++] = optarg;
		else
			usage();
	}
	if (optind != argc - 1 || !(text = slurp(argv[optind])))
		usage();
	if (sim_parse(&s, text, err, sizeof(err))) {
		fprintf(stderr, "hvsim: %s: %s\n", argv[optind], err);
		return 1;
	}
	free(text);
	if (seed >= 0)
		s.seed = (uint64_t)seed;
	if (policy)
		snprintf(s.policy, sizeof(s.policy), "%s", policy);
	for (int i = 0; i < nopt; i++) {
		s.opts = realloc(s.opts, (size_t)(s.nopts + 1) * sizeof(*s.opts));
		snprintf(s.opts[s.nopts++], 96, "%s", opts[i]);
	}
	for (int i = 0; i < nsws; i++) {
		struct sim_switch w = { .installed = -1 };
		double ms;
		char pol[32] = "", opt[160] = "";
		int k;

		if (sscanf(sws[i], "%lf:%31[^:]:%159s", &ms, pol, opt) < 2 || ms < 0)
			usage();
		w.at = SIM_MS(ms);
		snprintf(w.policy, sizeof(w.policy), "%s", pol);
		snprintf(w.opts, sizeof(w.opts), "%s", opt);
		s.sw = realloc(s.sw, (size_t)(s.nsw + 1) * sizeof(*s.sw));
		for (k = s.nsw; k > 0 && s.sw[k - 1].at > w.at; k--)
			s.sw[k] = s.sw[k - 1];
		s.sw[k] = w;
		s.nsw++;
	}
	if (trace && (!(tf = fopen(trace, "w")) || trace_start(&s, tf))) {
		fprintf(stderr, "hvsim: cannot start the vProfile trace %s\n", trace);
		return 1;
	}
	if (sim_setup(&s)) {
		fprintf(stderr, "hvsim: setup failed\n");
		return 1;
	}
	/* A PAUSE-loop exit proves up to one window of spinning: credit up to
	 * the largest adaptive window (as hv/vm/vprof_platform.c). */
	if (tf && s.ple && sched_opts.ple_window > 0)
		vprof_spin_set_ple((uint64_t)(s.ple * sched_opts.ple_window_max / sched_opts.ple_window));
	if (sample_vm >= 0 && !tf) {
		fprintf(stderr, "hvsim: -P needs -t TRACE\n");
		return 1;
	}
	if (sample_vm >= 0) {
		if (sampling_run(&s)) {
			fprintf(stderr, "hvsim: -P: bad VM or dedicated mode refused\n");
			return 1;
		}
	} else {
		sim_run(&s);
	}
	sim_report(&s, stdout);
	if (tf) {
		vprof_shutdown(0, s.now);
		fclose(tf);
	}
	sim_free(&s);
	return 0;
}
