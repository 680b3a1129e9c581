/* Parser of the hvsim workload language (docs/sched.md "Workload format"):
 * one directive per line, '#' starts a comment, times take ns/us/ms/s. */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "sim.h"

#define MAXTOK 16

struct pctx {
	struct sim *s;
	char *err;
	size_t errlen;
	int line;
	struct sim_prog *prog;    /* program being defined */
	int loopstack[16], depth;
};

static int perr(struct pctx *c, const char *msg, const char *tok)
{
	snprintf(c->err, c->errlen, "line %d: %s%s%s", c->line, msg, tok ? ": " : "",
		 tok ? tok : "");
	return -1;
}

static void *grow(void *p, int n, size_t sz)
{
	p = realloc(p, (size_t)(n + 1) * sz);
	if (!p)
		abort();
	memset((char *)p + (size_t)n * sz, 0, sz);
	return p;
}

/* "10ms", "1.5s", "200us", "500ns", bare numbers are ms. */
static int parse_time(const char *t, stime_t *out)
{
	char *end;
	double v = strtod(t, &end);

	if (end == t || v < 0)
		return -1;
	if (!*end || !strcmp(end, "ms"))
		*out = SIM_MS(v);
	else if (!strcmp(end, "us"))
		*out = SIM_US(v);
	else if (!strcmp(end, "ns"))
		*out = (stime_t)v;
	else if (!strcmp(end, "s"))
		*out = SIM_MS(v * 1000.0);
	else
		return -1;
	return 0;
}

static int find_name(const char *base, size_t stride, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(base + (size_t)i * stride, name))
			return i;
	return -1;
}

static int find_bar(struct sim *s, const char *n)
{
	return find_name(s->bar ? s->bar->name : NULL, sizeof(*s->bar), s->nbars, n);
}

static int find_lock(struct sim *s, const char *n)
{
	return find_name(s->lock ? s->lock->name : NULL, sizeof(*s->lock), s->nlocks, n);
}

static struct sim_prog *find_prog(struct sim *s, const char *n)
{
	int i = find_name(s->prog ? s->prog->name : NULL, sizeof(*s->prog), s->nprogs, n);

	return i < 0 ? NULL : &s->prog[i];
}

static struct sim_op *add_op(struct sim_prog *p, int kind)
{
	p->ops = grow(p->ops, p->nops, sizeof(*p->ops));
	p->ops[p->nops].kind = kind;
	return &p->ops[p->nops++];
}

/* spin | block | spin-block=T */
static int parse_mode(struct pctx *c, const char *t, struct sim_op *op)
{
	if (!t || !strcmp(t, "spin"))
		op->mode = WAIT_SPIN;
	else if (!strcmp(t, "block"))
		op->mode = WAIT_BLOCK;
	else if (!strncmp(t, "spin-block=", 11) && !parse_time(t + 11, &op->spin))
		op->mode = WAIT_SPIN_BLOCK;
	else
		return perr(c, "bad wait mode", t);
	return 0;
}

static int parse_prog_line(struct pctx *c, char **tok, int n)
{
	struct sim_prog *p = c->prog;
	struct sim_op *op;

	if (!strcmp(tok[0], "end") && c->depth == 0) {
		c->prog = NULL;
		return 0;
	}
	if (!strcmp(tok[0], "compute") && (n == 2 || (n == 3 && !strcmp(tok[2], "mem")))) {
		char *dots = strstr(tok[1], "..");

		op = add_op(p, OP_COMPUTE);
		op->mode = n == 3;   /* memory-bound: slowed by co-running ones */
		if (dots)
			*dots = 0;
		if (parse_time(tok[1], &op->a) || (dots && parse_time(dots + 2, &op->b)))
			return perr(c, "bad time", tok[1]);
		return 0;
	}
	if (!strcmp(tok[0], "sleep") && n == 2) {
		op = add_op(p, OP_SLEEP);
		if (!strncmp(tok[1], "duty=", 5)) {
			op->b = atoi(tok[1] + 5);
			return op->b > 0 && op->b < 100 ? 0 : perr(c, "duty must be 1..99", tok[1]);
		}
		return parse_time(tok[1], &op->a) ? perr(c, "bad time", tok[1]) : 0;
	}
	if ((!strcmp(tok[0], "barrier") || !strcmp(tok[0], "lock")) && n >= 2) {
		bool bar = tok[0][0] == 'b';
		int i = bar ? find_bar(c->s, tok[1]) : find_lock(c->s, tok[1]);

		if (i < 0)
			return perr(c, "undeclared barrier/lock", tok[1]);
		op = add_op(p, bar ? OP_BARRIER : OP_LOCK);
		op->a = i;
		return parse_mode(c, n > 2 ? tok[2] : NULL, op);
	}
	if (!strcmp(tok[0], "unlock") && n == 2) {
		int i = find_lock(c->s, tok[1]);

		if (i < 0)
			return perr(c, "undeclared lock", tok[1]);
		add_op(p, OP_UNLOCK)->a = i;
		return 0;
	}
	if (!strcmp(tok[0], "iowait") && (n == 2 || (n == 3 && (!strcmp(tok[2], "closed") ||
							     !strcmp(tok[2], "restart"))))) {
		op = add_op(p, OP_IO_WAIT);
		op->b = n == 3 && !strcmp(tok[2], "closed");     /* the next request T after this one is served */
		op->mode = n == 3 && !strcmp(tok[2], "restart"); /* restart: the Linux latprobe's schedule */
		return parse_time(tok[1], &op->a) || !op->a ? perr(c, "bad time", tok[1]) : 0;
	}
	if (!strcmp(tok[0], "yield") && n == 1) {
		add_op(p, OP_YIELD);
		return 0;
	}
	if (!strcmp(tok[0], "loop") && n == 2) {
		if (c->depth >= 15)
			return perr(c, "loops nested too deep", NULL);
		op = add_op(p, OP_LOOP);
		op->a = !strcmp(tok[1], "forever") ? -1 : atoi(tok[1]);
		if (op->a == 0)
			return perr(c, "bad loop count", tok[1]);
		c->loopstack[c->depth++] = p->nops - 1;
		return 0;
	}
	if (!strcmp(tok[0], "end") && n == 1) {
		int l = c->loopstack[--c->depth];

		op = add_op(p, OP_END);
		op->match = l;
		p->ops[l].match = p->nops - 1;
		return 0;
	}
	return perr(c, "unknown program statement", tok[0]);
}

/* Built-in interference programs of seed 001 §2.4. */
static struct sim_prog *builtin_prog(struct pctx *c, char **tok, int n)
{
	struct sim *s = c->s;
	struct sim_prog *p;
	stime_t on = 0, off = 0;
	int duty = 0;

	if (!strcmp(tok[0], "persistent") && n == 1) {
	} else if (!strcmp(tok[0], "periodic") && n == 3) {
		if (parse_time(tok[1], &on) || parse_time(tok[2], &off) || !on)
			return NULL;
	} else if (!strcmp(tok[0], "intermittent") && n == 2) {
		duty = atoi(tok[1]);
		if (duty <= 0 || duty >= 100)
			return NULL;
	} else {
		return NULL;
	}
	s->prog = grow(s->prog, s->nprogs, sizeof(*s->prog));
	p = &s->prog[s->nprogs++];
	snprintf(p->name, sizeof(p->name), "%s#%d", tok[0], s->nprogs);
	add_op(p, OP_LOOP)->a = -1;
	if (duty) {
		struct sim_op *o = add_op(p, OP_COMPUTE);

		o->a = SIM_MS(1);
		o->b = SIM_MS(40);
		add_op(p, OP_SLEEP)->b = duty;
	} else {
		add_op(p, OP_COMPUTE)->a = on ? on : SIM_MS(1000);
		if (off)
			add_op(p, OP_SLEEP)->a = off;
	}
	add_op(p, OP_END);
	p->ops[0].match = p->nops - 1;
	p->ops[p->nops - 1].match = 0;
	return p;
}

static bool prog_finite(const struct sim_prog *p)
{
	for (int i = 0; i < p->nops; i++)
		if (p->ops[i].kind == OP_LOOP && p->ops[i].a < 0)
			return false;
	return true;
}

/* VM.V or VM.V-W */
static int parse_vcpus(struct pctx *c, const char *t, int *vm, int *lo, int *hi)
{
	char name[32];
	const char *dot = strrchr(t, '.');

	if (!dot || (size_t)(dot - t) >= sizeof(name))
		return perr(c, "expected VM.VCPU", t);
	memcpy(name, t, (size_t)(dot - t));
	name[dot - t] = 0;
	*vm = find_name(c->s->vm ? c->s->vm->name : NULL, sizeof(*c->s->vm), c->s->nvms, name);
	if (*vm < 0)
		return perr(c, "unknown vm", name);
	*lo = *hi = atoi(dot + 1);
	if (strchr(dot, '-'))
		*hi = atoi(strchr(dot, '-') + 1);
	if (*lo < 0 || *hi < *lo || *hi >= c->s->vm[*vm].nvcpus)
		return perr(c, "bad vcpu range", t);
	return 0;
}

static int parse_thread(struct pctx *c, char **tok, int n)
{
	struct sim *s = c->s;
	struct sim_prog *p;
	int vm, lo, hi;

	if (n < 3 || parse_vcpus(c, tok[1], &vm, &lo, &hi))
		return n < 3 ? perr(c, "thread VM.VCPU PROGRAM", NULL) : -1;
	int cls = TC_NORMAL;

	/* Optional trailing thread class: `io` (seed 004's I/O task). */
	if (n > 3 && !strcmp(tok[n - 1], "io")) {
		cls = TC_IO;
		n--;
	}
	p = find_prog(s, tok[2]);
	if (!p && !(p = builtin_prog(c, tok + 2, n - 2)))
		return perr(c, "unknown program", tok[2]);
	for (int v = lo; v <= hi; v++) {
		struct sim_thread *t;

		s->thr = grow(s->thr, s->nthr, sizeof(*s->thr));
		t = &s->thr[s->nthr];
		t->idx = s->nthr++;
		t->vm = vm;
		t->vcpu = v;      /* VM-local until setup */
		t->prog = (const struct sim_prog *)(intptr_t)(p - s->prog); /* fixed in setup */
		t->waiting_on = -1;
		t->cls = cls;
		s->vm[vm].nthreads++;
		if (!prog_finite(p))
			s->vm[vm].measure = false;
	}
	return 0;
}

/* pin VM.V[-W] C[-D]: each vCPU in the range may run on pCPUs C..D. */
static int parse_pin(struct pctx *c, char **tok, int n)
{
	struct sim *s = c->s;
	int vm, lo, hi, clo, chi;
	char *dash;

	if (n != 3 || parse_vcpus(c, tok[1], &vm, &lo, &hi))
		return n != 3 ? perr(c, "pin VM.V[-W] C[-D]", NULL) : -1;
	clo = chi = atoi(tok[2]);
	if ((dash = strchr(tok[2], '-')))
		chi = atoi(dash + 1);
	if (clo < 0 || chi < clo || chi >= SCHED_MAX_PCPUS)
		return perr(c, "bad cpu range", tok[2]);
	s->pins = grow(s->pins, s->npins, sizeof(*s->pins));
	s->pins[s->npins].vm = vm;
	s->pins[s->npins].lo = lo;
	s->pins[s->npins].hi = hi;
	s->pins[s->npins].clo = clo;
	s->pins[s->npins++].chi = chi;
	return 0;
}

/* place VM.V[-W] C: each vCPU in the range starts on pCPU C (then free to
 * move: the policy balances it as any other). */
static int parse_place(struct pctx *c, char **tok, int n)
{
	struct sim *s = c->s;
	int vm, lo, hi, cpu;

	if (n != 3 || parse_vcpus(c, tok[1], &vm, &lo, &hi))
		return n != 3 ? perr(c, "place VM.V[-W] C", NULL) : -1;
	cpu = atoi(tok[2]);
	if (cpu < 0 || cpu >= SCHED_MAX_PCPUS)
		return perr(c, "bad cpu", tok[2]);
	s->pins = grow(s->pins, s->npins, sizeof(*s->pins));
	s->pins[s->npins].vm = vm;
	s->pins[s->npins].lo = lo;
	s->pins[s->npins].hi = hi;
	s->pins[s->npins].clo = -1;   /* a placement, not an affinity */
	s->pins[s->npins++].chi = cpu;
	return 0;
}

static int parse_vm(struct pctx *c, char **tok, int n)
{
	struct sim *s = c->s;
	struct sim_vm *vm;

	if (n < 2)
		return perr(c, "vm NAME vcpus=N ...", NULL);
	s->vm = grow(s->vm, s->nvms, sizeof(*s->vm));
	vm = &s->vm[s->nvms++];
	snprintf(vm->name, sizeof(vm->name), "%s", tok[1]);
	vm->nvcpus = 1;
	vm->measure = true;
	vm->prm.weight = 256;
	vm->ack_lat = SIM_US(20);
	for (int i = 2; i < n; i++) {
		char *eq = strchr(tok[i], '=');

		if (!eq)
			return perr(c, "expected key=value", tok[i]);
		*eq++ = 0;
		if (!strcmp(tok[i], "vcpus"))
			vm->nvcpus = atoi(eq);
		else if (!strcmp(tok[i], "weight"))
			vm->prm.weight = (uint32_t)atoi(eq);
		else if (!strcmp(tok[i], "cap"))
			vm->prm.cap = (uint32_t)atoi(eq);
		else if (!strcmp(tok[i], "type"))
			vm->prm.type = !strcmp(eq, "con");
		else if (!strcmp(tok[i], "sa"))
			vm->prm.sa = !strcmp(eq, "on");
		/* Guest model (docs/sched.md "Guest model"). */
		else if (!strcmp(tok[i], "guest") && (!strcmp(eq, "rr") || !strcmp(eq, "cfs")))
			vm->cfs = !strcmp(eq, "cfs");
		else if (!strcmp(tok[i], "gbal"))
			vm->gbal = !strcmp(eq, "on");
		else if (!strcmp(tok[i], "pv"))
			vm->pv = vm->steal_clock = !strcmp(eq, "on");
		else if (!strcmp(tok[i], "irs")) {
			vm->irs = !strcmp(eq, "on");
			if (vm->irs)   /* IRS = PV kernel + receiver; hv sends upcalls */
				vm->gbal = vm->pv = vm->steal_clock = vm->prm.sa = vm->irs_block =
					vm->irs_pullback = vm->irs_ack_busy = true;
		} else if (!strcmp(tok[i], "irs_block")) {
			vm->irs_block = !strcmp(eq, "on");
		} else if (!strcmp(tok[i], "irs_pullback")) {
			vm->irs_pullback = !strcmp(eq, "on");
		} else if (!strcmp(tok[i], "irs_ack_busy")) {
			vm->irs_ack_busy = !strcmp(eq, "on");
		} else if (!strcmp(tok[i], "ack_latency")) {
			if (parse_time(eq, &vm->ack_lat))
				return perr(c, "bad time", eq);
		} else if (!strcmp(tok[i], "io_prio") && (!strcmp(eq, "rt") || !strcmp(eq, "cfs")))
			vm->io_rt = !strcmp(eq, "rt");
		else if (!strcmp(tok[i], "balloon") && (!strcmp(eq, "off") || !strcmp(eq, "static") ||
							  !strcmp(eq, "dynamic"))) {
			vm->balloon = !strcmp(eq, "static") ? 1 : !strcmp(eq, "dynamic") ? 2 : 0;
			if (vm->balloon)   /* the balloon kernel: CFS, rq_clock_task */
				vm->cfs = vm->steal_clock = true;
		}
		else
			return perr(c, "unknown vm key", tok[i]);
	}
	if (vm->nvcpus < 1 || vm->nvcpus > 1024)
		return perr(c, "bad vcpus", NULL);
	return 0;
}

static int parse_decl(struct pctx *c, char **tok, int n)
{
	struct sim *s = c->s;

	if (!strcmp(tok[0], "barrier") && n == 3) {
		s->bar = grow(s->bar, s->nbars, sizeof(*s->bar));
		snprintf(s->bar[s->nbars].name, 32, "%s", tok[1]);
		s->bar[s->nbars++].parties = atoi(tok[2]);
		return atoi(tok[2]) > 0 ? 0 : perr(c, "bad party count", tok[2]);
	}
	if (!strcmp(tok[0], "lock") && n == 2) {
		s->lock = grow(s->lock, s->nlocks, sizeof(*s->lock));
		snprintf(s->lock[s->nlocks].name, 32, "%s", tok[1]);
		s->lock[s->nlocks++].holder = -1;
		return 0;
	}
	if (!strcmp(tok[0], "program") && n == 2) {
		s->prog = grow(s->prog, s->nprogs, sizeof(*s->prog));
		c->prog = &s->prog[s->nprogs++];
		snprintf(c->prog->name, sizeof(c->prog->name), "%s", tok[1]);
		c->depth = 0;
		return 0;
	}
	return -2;
}

static int parse_line(struct pctx *c, char **tok, int n)
{
	struct sim *s = c->s;
	int rc;

	if (c->prog)
		return parse_prog_line(c, tok, n);
	if ((rc = parse_decl(c, tok, n)) != -2)
		return rc;
	if (!strcmp(tok[0], "vm"))
		return parse_vm(c, tok, n);
	if (!strcmp(tok[0], "thread"))
		return parse_thread(c, tok, n);
	if (!strcmp(tok[0], "pin"))
		return parse_pin(c, tok, n);
	if (!strcmp(tok[0], "place"))
		return parse_place(c, tok, n);
	if (!strcmp(tok[0], "pcpus") && n == 2 && (s->npcpus = atoi(tok[1])) > 0 &&
	    s->npcpus <= SCHED_MAX_PCPUS)
		return 0;
	if (!strcmp(tok[0], "seed") && n == 2)
		return s->seed = strtoull(tok[1], NULL, 0), 0;
	if (!strcmp(tok[0], "policy") && n == 2)
		return snprintf(s->policy, sizeof(s->policy), "%s", tok[1]), 0;
	if (!strcmp(tok[0], "option") && n == 2) {
		s->opts = grow(s->opts, s->nopts, sizeof(*s->opts));
		snprintf(s->opts[s->nopts++], 96, "%s", tok[1]);
		return 0;
	}
	if (!strcmp(tok[0], "duration") && n == 2)
		return parse_time(tok[1], &s->duration) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "guest_slice") && n == 2)
		return parse_time(tok[1], &s->gslice) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "memory") && n >= 2) {
		for (int i = 1; i < n; i++) {
			if (!strncmp(tok[i], "alpha=", 6))
				s->mem_alpha_milli = (int)(strtod(tok[i] + 6, NULL) * 1000.0 + 0.5);
			else if (!strncmp(tok[i], "free=", 5))
				s->mem_free = atoi(tok[i] + 5);
			else
				return perr(c, "memory takes alpha= and free=", tok[i]);
		}
		return s->mem_alpha_milli < 0 || s->mem_free < 0 ? perr(c, "bad memory", NULL) : 0;
	}
	if (!strcmp(tok[0], "cache_refill") && n == 2)
		return parse_time(tok[1], &s->cache_refill) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "ple") && n == 2)
		return parse_time(tok[1], &s->ple) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "warmup") && n == 2)
		return parse_time(tok[1], &s->warmup) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "guest_balance") && n == 2)
		return parse_time(tok[1], &s->gbal_period) || !s->gbal_period ?
			perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "kick_latency") && n == 2)
		return parse_time(tok[1], &s->kick_lat) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "start") && n == 2)
		return parse_time(tok[1], &s->t0) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "acct_offset") && n == 2)
		return parse_time(tok[1], &s->acct_off) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "io_latency") && n == 2)
		return parse_time(tok[1], &s->io_lat) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "timer_latency") && n == 2)
		return parse_time(tok[1], &s->timer_lat) ? perr(c, "bad time", tok[1]) : 0;
	if (!strcmp(tok[0], "switch") && n >= 3) {
		struct sim_switch *w;

		s->sw = grow(s->sw, s->nsw, sizeof(*s->sw));
		w = &s->sw[s->nsw];
		memset(w, 0, sizeof(*w));
		if (parse_time(tok[1], &w->at) || (s->nsw && w->at < s->sw[s->nsw - 1].at))
			return perr(c, "switch times must be valid and in order", tok[1]);
		w->installed = -1;
		snprintf(w->policy, sizeof(w->policy), "%s", tok[2]);
		for (int i = 3; i < n; i++) {
			size_t l = strlen(w->opts);
			struct sim_vm *vm;

			/* vm=NAME: move that VM only (hv/sched/vmpolicy.c), by its id. */
			if (!strncmp(tok[i], "vm=", 3) && (tok[i][3] < '0' || tok[i][3] > '9')) {
				if (!(vm = sim_vm_find(s, tok[i] + 3)))
					return perr(c, "switch vm=: no such VM (declare it first)",
						    tok[i]);
				snprintf(w->opts + l, sizeof(w->opts) - l, "%svm=%d", l ? " " : "",
					 (int)(vm - s->vm));
				continue;
			}
			snprintf(w->opts + l, sizeof(w->opts) - l, "%s%s", l ? " " : "", tok[i]);
		}
		s->nsw++;
		return 0;
	}
	if (!strcmp(tok[0], "expect"))
		return 0;   /* for test/sim/check.py */
	return perr(c, "unknown directive", tok[0]);
}

int sim_parse(struct sim *s, const char *text, char *err, size_t errlen)
{
	struct pctx c = { .s = s, .err = err, .errlen = errlen };
	char *buf = strdup(text), *line, *save = NULL;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->npcpus = 4;
	s->seed = 1;
	s->duration = SIM_MS(60000);
	s->gslice = SIM_MS(4);
	s->kick_lat = SIM_US(2);
	s->gbal_period = SIM_MS(4);
	snprintf(s->policy, sizeof(s->policy), "credit");
	for (line = strtok_r(buf, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		char *tok[MAXTOK], *h = strchr(line, '#'), *sv2 = NULL;
		int n = 0;

		c.line++;
		if (h)
			*h = 0;
		for (char *t = strtok_r(line, " \t\r", &sv2); t && n < MAXTOK;
		     t = strtok_r(NULL, " \t\r", &sv2))
			tok[n++] = t;
		if (n)
			rc = parse_line(&c, tok, n);
	}
	if (!rc && c.prog)
		rc = perr(&c, "program not closed with 'end'", c.prog->name);
	free(buf);
	return rc;
}

void sim_free(struct sim *s)
{
	for (int i = 0; i < s->nprogs; i++)
		free(s->prog[i].ops);
	for (int i = 0; i < s->nthr; i++)
		free(s->thr[i].io_lat);
	free(s->prog);
	free(s->vm);
	free(s->vcpu);
	free(s->thr);
	free(s->bar);
	free(s->lock);
	free(s->opts);
	free(s->pins);
	free(s->sw);
	free(s->pcpu);
	free(s->q.h);
	memset(s, 0, sizeof(*s));
}
