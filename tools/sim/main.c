/* hvsim command line: hvsim [-s seed] [-p policy] [-o name=value]... FILE */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim.h"

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
	fprintf(stderr, "usage: hvsim [-s seed] [-p policy] [-o option=value]... WORKLOAD\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *policy = NULL, *opts[32];
	long long seed = -1;
	int c, nopt = 0;
	struct sim s;
	char err[256], *text;

	while ((c = getopt(argc, argv, "s:p:o:")) != -1) {
		if (c == 's')
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
	if (sim_setup(&s)) {
		fprintf(stderr, "hvsim: setup failed\n");
		return 1;
	}
	sim_run(&s);
	sim_report(&s, stdout);
	sim_free(&s);
	return 0;
}
