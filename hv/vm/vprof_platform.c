/* vProfile platform: the hypervisor side of docs/vprofile.md "Integration".
 * The recorder (hv/trace) is pure logic; this file gives it memory, a serial
 * sink, the VMs of the boot modules, the VM exits and the hypercalls. State
 * changes and PLE events come from hv/sched (weak references there). */
#include "vm/vprof_platform.h"
#include "vm/vm.h"
#include "vm/watchdog.h"
#include "vm/modstr.h"
#include "trace/vprof.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "sched/policy.h"
#include "hypercall.h"
#include "cmdline.h"
#include "console.h"
#include "memory.h"
#include "abi.h"
#include "errno.h"
#include "log.h"

/* PLE_Window in TSC ticks (SDM vol. 3 §25.6.13 "PAUSE-Loop Exiting"). A PLE
 * exit means the guest has been in a PAUSE loop for about this long: the
 * recorder credits it as spinning. The window is per vCPU and adaptive
 * (hv/sched/ple.c): credit up to the largest one; the recorder never credits
 * before the previous credit or the run start, so exits at a small window
 * are not over-counted. */
#define VPROF_GLUE_PLE_WINDOW_TSC ((uint64_t)sched_opts.ple_window_max)

static bool vprof_plat_ready;

/* vprof_boot=: what tracing does before any guest asks. `off` (default):
 * recorder ready, no profile until HC_VPROF_START; `on`: every VM profiled
 * from boot, dumped when it ends; `exits`: `on` plus one record per VM exit;
 * `none`: recorder not initialised (the baseline for the cost figure). */
enum vprof_plat_boot { VPG_BOOT_OFF, VPG_BOOT_ON, VPG_BOOT_EXITS, VPG_BOOT_NONE };
static const char *const vprof_plat_boot_names[] = { "off", "on", "exits", "none", NULL };
static int vprof_plat_boot = VPG_BOOT_OFF;
CMDLINE_ENUM(vprof_boot, vprof_plat_boot, vprof_plat_boot_names,
	     "vProfile at boot: off|on|exits|none (docs/vprofile.md)");

/* One complete line per call: console_write() holds the console lock for
 * the whole line, so log lines never split a frame. */
static void vprof_plat_sink(void *ctx, const char *line, size_t len)
{
	console_write(line, len);
	watchdog_dump_line(this_cpu_id());   /* busy, not stalled */
}

static uint64_t vprof_plat_ple_ns(void)
{
	if (!tsc_hz)
		return 0;
	return (uint64_t)VPROF_GLUE_PLE_WINDOW_TSC * 1000000000ull / tsc_hz;
}

/* Declare each VM before its vCPUs first change state (vm_create_all runs
 * later), so the scheduler's very first transitions are accounted. */
static void vprof_plat_vms_config(const struct boot_info *bi)
{
	static struct vm_params p;   /* 1 KiB cmdline: not on the boot stack */

	for (unsigned i = 0; i < bi->nr_modules; i++) {
		int err;

		if (modstr_parse(bi->modules[i].string, &p) || p.role != MOD_ROLE_KERNEL ||
		    p.vm < 0)
			continue;
		err = vprof_vm_config((uint16_t)p.vm, (uint16_t)p.vcpus, p.vprof_dedicated);
		if (!err && vprof_plat_boot != VPG_BOOT_OFF)
			err = vprof_vm_start(this_cpu_id(), (uint16_t)p.vm, time_now());
		if (err)
			pr_warn("vprof: vm%d not traced (error %d)\n", p.vm, err);
	}
}

void vprof_plat_init(const struct boot_info *bi)
{
	size_t len = vprof_mem_size(nr_cpus_online, VPROF_GLUE_RECS_PER_PCPU);
	void *mem;
	int err;

	if (vprof_plat_boot == VPG_BOOT_NONE) {
		pr_info("vprof: not initialised (vprof_boot=none)\n");
		return;
	}
	mem = page_alloc_zeroed((unsigned)((len + PAGE_SIZE - 1) / PAGE_SIZE));
	err = mem ? vprof_init(nr_cpus_online, mem, len) : -ENOMEM;
	if (err) {
		pr_err("vprof: tracing off (error %d, %lu bytes)\n", err, (uint64_t)len);
		return;
	}
	vprof_set_sink(vprof_plat_sink, NULL);
	vprof_spin_set_ple(vprof_plat_ple_ns());
	vprof_set_exit_trace(vprof_plat_boot == VPG_BOOT_EXITS);
	sched_dedicated_init();   /* vprof_init dropped the hook sched_init set */
	vprof_plat_vms_config(bi);
	WRITE_ONCE(vprof_plat_ready, true);
	pr_info("vprof: %u pCPU ring%s of %u records, PLE credit %lu ns\n", nr_cpus_online,
		nr_cpus_online > 1 ? "s" : "", VPROF_GLUE_RECS_PER_PCPU, vprof_plat_ple_ns());
}

/* exit_dispatch() polls the VM's profiling flag first (lock-free): with no
 * profile running an exit costs a flag read (no call, clock read or VM
 * lock); a profile starting meanwhile misses at most this exit. */
void vprof_plat_exit(struct vcpu *v, uint32_t reason)
{
	if (READ_ONCE(vprof_plat_ready) && vprof_vm_profiling((uint16_t)v->vm->id))
		vprof_exit(this_cpu_id(), (uint16_t)v->vm->id, (uint16_t)v->vmx.id, reason, time_now());
}

const volatile bool *vprof_plat_exit_flag(unsigned vm)
{
	static const bool never;
	const volatile bool *f = NULL;

	if (READ_ONCE(vprof_plat_ready))
		f = vprof_vm_profiling_flag((uint16_t)vm);
	return f ? f : &never;
}

void vprof_plat_vm_end(struct vm *vm)
{
	if (READ_ONCE(vprof_plat_ready))
		vprof_vm_end(this_cpu_id(), (uint16_t)vm->id, time_now());
}

void vprof_plat_shutdown(void)
{
	if (READ_ONCE(vprof_plat_ready))
		vprof_shutdown(this_cpu_id(), time_now());
}

/* HC_VPROF_* (hv/abi.h): CPL3-safe, checked by hcall_dispatch(); the calls
 * themselves (start, stop + dump, dedicated with permission, mark) are
 * hv/trace/hcall.c's. They run on v's own pCPU. */
static int64_t vprof_plat_hcall(struct vcpu *v, uint32_t nr, uint64_t a0)
{
	struct vm *vm = v->vm;

	if (!READ_ONCE(vprof_plat_ready))
		return -ENODEV;
	if (nr == HC_VPROF_START) {
		bool ok;

		/* Each started profile is dumped once: the start is what an
		 * unprivileged VM's dump budget counts (hypercall.c). */
		spin_lock(&vm->lock);
		ok = hcall_output_allowed(vm, &vm->rl_vprof, "vProfile starts");
		spin_unlock(&vm->lock);
		if (!ok)
			return -EAGAIN;
	}
	return vprof_hcall(this_cpu_id(), (uint16_t)v->vm->id, (uint16_t)v->vmx.id, nr, a0,
			   time_now());
}

#define VPROF_GLUE_HC(fn, nr)                                                        \
	static int64_t fn(struct vcpu *v, uint64_t a0, uint64_t a1, uint64_t a2,     \
			  uint64_t a3)                                               \
	{                                                                            \
		return vprof_plat_hcall(v, nr, a0);                                  \
	}                                                                            \
	HCALL_REGISTER(nr, fn)

VPROF_GLUE_HC(hc_vprof_start, HC_VPROF_START);
VPROF_GLUE_HC(hc_vprof_stop, HC_VPROF_STOP);
VPROF_GLUE_HC(hc_vprof_dedicated, HC_VPROF_DEDICATED);
VPROF_GLUE_HC(hc_vprof_mark, HC_VPROF_MARK);
