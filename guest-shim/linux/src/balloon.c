/* balloon: the CPU balloon of xBalloon (seed 004 §4.2) and the driver of its
 * experiment arms. One balloon thread per online CPU, each pinned to its CPU,
 * calls ioctl(/dev/xballoon, XBALLOON_RUN) in a loop: the kernel blocks it
 * while the vCPU is work-conserving (WC) and sleeps the vCPU through the
 * hypervisor while it is non-work-conserving (NWC).
 *
 *   balloon [-b] [-s] [-c PROG:ARG:...] [-t SEC] [--] CMD ARGS...
 *     -b   run the balloon threads while CMD runs (without -b: no balloon)
 *     -s   static priority (§4.4): CMD runs SCHED_FIFO, the -c program is
 *          flagged compute (charged steal); without -s all are SCHED_OTHER
 *     -c   a compute program (words separated by ':', e.g. hog:0) started
 *          before CMD and killed when CMD ends
 *     -t   run the balloon alone for SEC seconds (no CMD)
 * Prints CMD's output and then
 *   RESULT balloon on=0|1 cpus=N static=0|1 sleeps= cancel= yields= wcwait=
 *          upcalls= sleep_ms= mode=0|1 hog_ms= guard= gpick=
 *   (hog_ms: the -c program's CPU; guard: mode upcalls that found the
 *   hypervisor's balloon_guard set, gpick: picks it gave the balloon)
 * on=0 when the kernel has the balloon off (balloon=off or no hypervisor
 * support); the run still succeeds so one command line serves every arm. */
#include "wl.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define USAGE "balloon [-b] [-s] [-c PROG:ARG...] [-t SEC] [--] CMD ARGS..."
#define MAX_CPUS 64

/* include/uapi/linux/xballoon.h of the patched guest kernel (0200, 0203). */
#define XBALLOON_RUN		_IO('x', 0xb0)
#define XBALLOON_SET_COMPUTE	_IO('x', 0xb1)
struct xballoon_stats {
	uint32_t cpu, mode;
	uint64_t sleeps, cancelled, yields, wc_waits, upcalls, sleep_ns;
	int64_t credit_left_ns;
	uint64_t guards, guard_picks;   /* 0203: the hypervisor's NWC guard */
};
#define XBALLOON_GET_STATS	_IOR('x', 0xb2, struct xballoon_stats)

struct bthread {
	pthread_t tid;
	int cpu, fd, off;
	struct xballoon_stats st;
};
static volatile sig_atomic_t stop;
static struct bthread bt[MAX_CPUS];
static int nbt;

static void on_usr1(int sig) { (void)sig; }

static void *balloon_thread(void *arg)
{
	struct bthread *b = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(b->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("balloon: sched_setaffinity");
		return NULL;
	}
	while (!stop) {
		if (ioctl(b->fd, XBALLOON_RUN) < 0) {
			if (errno == ENODEV) {
				b->off = 1;
				break;
			}
			if (errno != EINTR) {
				perror("balloon: XBALLOON_RUN");
				break;
			}
		}
	}
	ioctl(b->fd, XBALLOON_GET_STATS, &b->st);
	return NULL;
}

static int start_balloon(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;     /* no SA_RESTART: the WC wait returns EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < n && i < MAX_CPUS; i++) {
		bt[i].cpu = i;
		bt[i].fd = open("/dev/xballoon", O_RDWR);
		if (bt[i].fd < 0 && errno == ENOENT)
			return 0;    /* an unpatched kernel: the balloon is off */
		if (bt[i].fd < 0) {
			perror("balloon: /dev/xballoon");
			return -1;
		}
		if (pthread_create(&bt[i].tid, NULL, balloon_thread, &bt[i]) != 0)
			return -1;
		nbt++;
	}
	return 0;
}

static void stop_balloon(void)
{
	stop = 1;
	for (int i = 0; i < nbt; i++)
		pthread_kill(bt[i].tid, SIGUSR1);
	for (int i = 0; i < nbt; i++) {
		pthread_join(bt[i].tid, NULL);
		close(bt[i].fd);
	}
}

/* Child: optional compute flag / SCHED_FIFO, then exec. */
static pid_t spawn(char **argv, int compute, int fifo)
{
	pid_t p = fork();

	if (p != 0)
		return p;
	if (compute) {
		int fd = open("/dev/xballoon", O_RDWR);
		if (fd >= 0 && ioctl(fd, XBALLOON_SET_COMPUTE, 1) != 0)
			perror("balloon: XBALLOON_SET_COMPUTE");
		if (fd >= 0)
			close(fd);
	}
	if (fifo) {
		struct sched_param sp = { .sched_priority = 10 };
		if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
			perror("balloon: SCHED_FIFO");
	}
	execvp(argv[0], argv);
	perror(argv[0]);
	_exit(127);
}

int main(int argc, char **argv)
{
	int opt, use_balloon = 0, fifo = 0, rc = 0, status;
	uint64_t alone_s = 0;
	char *cbuf = NULL, *cargv[16];
	pid_t cpid = 0, iopid;
	struct rusage ru;
	uint64_t compute_ns = 0;
	struct xballoon_stats tot = { 0 };
	int off = 1;

	while ((opt = getopt(argc, argv, "+bsc:t:")) != -1) {
		switch (opt) {
		case 'b': use_balloon = 1; break;
		case 's': fifo = 1; break;
		case 'c': cbuf = optarg; break;
		case 't': alone_s = wl_arg_u64(optarg, "seconds", USAGE); break;
		default:
			fprintf(stderr, "usage: %s\n", USAGE);
			return 2;
		}
	}
	if (optind >= argc && !alone_s) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	if (use_balloon && start_balloon() != 0)
		return 1;
	if (cbuf) {
		int n = 0;
		for (char *w = strtok(cbuf, ":"); w && n < 15; w = strtok(NULL, ":"))
			cargv[n++] = w;
		cargv[n] = NULL;
		cpid = spawn(cargv, fifo, 0);
	}
	if (optind < argc) {
		iopid = spawn(argv + optind, 0, fifo);
		if (waitpid(iopid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	} else {
		wl_sleep_ns(alone_s * 1000000000ull);
	}
	if (cpid > 0) {
		kill(cpid, SIGKILL);
		if (wait4(cpid, &status, 0, &ru) == cpid)
			compute_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
				     (uint64_t)ru.ru_utime.tv_usec * 1000ull +
				     (uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
				     (uint64_t)ru.ru_stime.tv_usec * 1000ull;
	}
	if (use_balloon) {
		stop_balloon();
		off = nbt == 0;
		for (int i = 0; i < nbt; i++) {
			off |= bt[i].off;
			tot.sleeps += bt[i].st.sleeps;
			tot.cancelled += bt[i].st.cancelled;
			tot.yields += bt[i].st.yields;
			tot.wc_waits += bt[i].st.wc_waits;
			tot.upcalls += bt[i].st.upcalls;
			tot.sleep_ns += bt[i].st.sleep_ns;
			tot.guards += bt[i].st.guards;
			tot.guard_picks += bt[i].st.guard_picks;
			tot.mode |= bt[i].st.mode;
		}
	}
	/* Short keys: the hypervisor's console wraps lines past 160 characters. */
	printf("RESULT balloon on=%d cpus=%d static=%d sleeps=%llu cancel=%llu yields=%llu "
	       "wcwait=%llu upcalls=%llu sleep_ms=%llu mode=%u hog_ms=%llu guard=%llu gpick=%llu\n",
	       !off, nbt, fifo, (unsigned long long)tot.sleeps, (unsigned long long)tot.cancelled,
	       (unsigned long long)tot.yields, (unsigned long long)tot.wc_waits,
	       (unsigned long long)tot.upcalls, (unsigned long long)(tot.sleep_ns / 1000000),
	       tot.mode, (unsigned long long)(compute_ns / 1000000),
	       (unsigned long long)tot.guards, (unsigned long long)tot.guard_picks);
	return rc;
}
