/* VM creation from boot modules, placement of vCPUs on pCPUs, the per-pCPU
 * loop, and ending VMs. A failure while creating or running a VM ends that VM
 * only; when the last VM ends the run ends with a summary. */
#include "vm/vm.h"
#include "vm/exit_route.h"
#include "vm/kvm_pv_vcpu.h"
#include "vmx/fpu.h"
#include "vm/sched_platform.h"
#include "vm/vprof_platform.h"
#include "vm/watchdog.h"
#include "console_input.h"
#include "lib/fmt.h"
#include "vmx/caps.h"
#include "hv.h"
#include "memory.h"
#include "mm/pmm.h"
#include "dev/acpi_tables.h"
#include "dev/acpipm.h"
#include "lib/string.h"
#include "arch/x86/cpu.h"
#include "arch/x86/apic.h"
#include "arch/x86/trap.h"
#include "arch/x86/percpu.h"
#include "arch/x86/time.h"
#include "hypercall.h"
#include "errno.h"
#include "log.h"
#include "cmdline.h"
#include "vm_status.h"

struct vm *vms[VM_MAX];
unsigned nr_vms;
static volatile bool vms_ready;
/* Off by default so that Bochs runs repeat (vmx/cpuid_filter.c). */
static bool opt_guest_rdrand;
CMDLINE_BOOL(guest_rdrand, opt_guest_rdrand,
	     "show RDRAND/RDSEED in guests' CPUID (values from the CPU or emulator: runs "
	     "no longer repeat)");
static volatile unsigned vms_dead;

static void *ept_alloc(void *ctx) { return page_alloc_zeroed(1); }
static paddr_t ept_v2p(void *ctx, void *p) { return (paddr_t)p; }
static void *ept_p2v(void *ctx, paddr_t pa) { return (void *)pa; }

static int vm_memory(struct vm *vm)
{
	paddr_t ram = pmm_alloc_pages(vm->p.mem / PAGE_SIZE, MiB(2), HV_DIRECT_MAP_END);

	if (!ram) {
		pr_err("%s: no %lu MiB of contiguous host RAM for the guest\n", vm->p.name,
		       vm->p.mem >> 20);
		return -ENOMEM;
	}
	vm->ram = (uint8_t *)ram;
	vm->ram_size = vm->p.mem;
	/* Only the firmware area is cleared: loaders clear what they load (a PC
	 * does not clear RAM either), and clearing 64 MiB costs seconds in Bochs. */
	memset(vm->ram, 0, MiB(1));
	vm->vmx.ept = (struct ept){ .alloc_page = ept_alloc, .virt_to_phys = ept_v2p,
				.phys_to_virt = ept_p2v };
	if (ept_init(&vm->vmx.ept) || ept_map(&vm->vmx.ept, 0, ram, vm->ram_size, EPT_RWX))
		return -ENOMEM;
	vm->vmx.io_bitmap = page_alloc_zeroed(2);
	vm->vmx.msr_bitmap = page_alloc_zeroed(1);
	if (!vm->vmx.io_bitmap || !vm->vmx.msr_bitmap)
		return -ENOMEM;
	memset(vm->vmx.io_bitmap, 0xff, 2 * PAGE_SIZE);   /* every port exits */
	msr_filter_fill_bitmap(&vm->vmx.msrs, vm->vmx.msr_bitmap);
	return 0;
}

static int vm_firmware(struct vm *vm)
{
	struct acpi_tables_cfg cfg;
	struct acpi_tables_info info;

	acpi_tables_cfg_default(&cfg, vm->nr_vcpus);
	return acpi_tables_build(vm->ram + GUEST_BIOS_START, ACPI_TABLES_AREA_SIZE, &cfg, &info);
}

static int vm_load(struct vm *vm, const struct bootinfo_module *k, const struct bootinfo_module *i)
{
	struct guest_ram ram = { vm->ram, vm->ram_size, vm->nr_vcpus };
	struct guest_image img = {
		.data = (const uint8_t *)k->start, .size = k->end - k->start,
		.cmdline = vm->p.cmdline,
		.initrd = i ? (const uint8_t *)i->start : NULL,
		.initrd_size = i ? i->end - i->start : 0,
	};

	switch (vm->p.kind) {
	case VM_KIND_MULTIBOOT:
		return load_multiboot1(&ram, &img, &vm->entry);
	case VM_KIND_FLAT:
		return load_flat(&ram, &img, &vm->entry);
	case VM_KIND_LINUX:
		return load_bzimage(&ram, &img, &vm->entry);
	}
	return -EINVAL;
}

/* What the guest's CPUID says about XSAVE and the TSC/LAPIC clocks
 * (vmx/cpuid_filter.h): the host's XSAVE components that have a size, the
 * TSC rate the guest sees (the host's: no TSC scaling) and the vLAPIC's
 * 1 GHz input clock. */
static void vm_cpuid_platform(struct cpuid_policy *cp)
{
	struct cpuid_regs d0, sub[CPUID_XSAVE_COMPS];

	if (cpu_has(1, CPUID_ECX, 26)) {
		cpuid_count(0xd, 0, &d0);
		for (unsigned i = 0; i < CPUID_XSAVE_COMPS; i++)
			cpuid_count(0xd, i, &sub[i]);
		cpuid_policy_xsave(cp, ((uint64_t)d0.edx << 32) | d0.eax, sub);
	}
	/* The host's last cache level in leaf 4 (type 0 ends the list). */
	if (cp->host_max_basic >= 4)
		for (unsigned i = 0; i < 16; i++) {
			struct cpuid_regs c;

			cpuid_count(4, i, &c);
			if (!(c.eax & 0x1f))
				break;
			cp->llc_level = (uint8_t)MAX(cp->llc_level, (c.eax >> 5) & 7);
		}
	cp->tsc_khz = (uint32_t)MIN(tsc_hz / 1000, 0xffffffffull);
	cp->lapic_hz = (uint32_t)VLAPIC_BUS_HZ;
}

static int vm_create(const struct vm_params *p, const struct bootinfo_module *k,
		     const struct bootinfo_module *initrd)
{
	struct vm *vm = page_alloc_zeroed((sizeof(*vm) + PAGE_SIZE - 1) / PAGE_SIZE);
	struct cpuid_regs r;
	int err;

	if (!vm)
		return -ENOMEM;
	vm->p = *p;
	vm->id = (unsigned)p->vm;
	vm->vmx.name = vm->p.name;
	vm->vmx.apicv = p->apicv;
	vm->vmx.intc = &vm->devs.intc;
	vm->vmx.lock = &vm->lock;
	vm->nr_vcpus = p->vcpus;
	hcall_limits_init(vm);
	cpuid_count(0, 0, &r);
	cpuid_policy_init(&vm->vmx.cpuid, vm->nr_vcpus, r.eax);
	vm_cpuid_platform(&vm->vmx.cpuid);
	/* KVM's PV ABI (vmx/kvm_pv.h): on for kind=linux unless kvm=off. */
	vm->vmx.msrs.kvm_pv = vm->vmx.cpuid.kvm_sig = p->kvm_set ? p->kvm_pv : p->kind == VM_KIND_LINUX;
	vm->vmx.cpuid.kvm_features = vm->vmx.cpuid.kvm_sig ? kvm_pv_features() : 0;
	/* RDTSCP is enabled in the VMCS when the CPU has it (vmcs_setup.c); the
	 * guest then owns IA32_TSC_AUX, switched per vCPU by vmx/fpu.c. */
	vm->vmx.cpuid.rdtscp = vm->vmx.msrs.rdtscp = vmx_ctl_has(&vmx_caps.proc2, PROC2_RDTSCP);
	vm->vmx.cpuid.rdrand = opt_guest_rdrand;
	/* Bochs 2.7's XSAVEC writes a layout its XRSTOR does not read (fpu.c). */
	vm->vmx.cpuid.no_xsavec = !fpu_xsavec_ok();
	if ((err = vm_memory(vm)) || (err = vm_devs_init(vm)) || (err = vm_firmware(vm)) ||
	    (err = vm_load(vm, k, initrd)))
		return err;
	for (unsigned i = 0; i < vm->nr_vcpus; i++)
		if ((err = vcpu_create(vm, i)))
			return err;
	if ((err = sched_plat_vm_add(vm)))
		return err;
	vms[nr_vms++] = vm;
	pr_info("%s: %u vCPU%s, %lu MiB at host %#lx, entry %#lx, weight %u cap %u%s\n", p->name,
		vm->nr_vcpus, vm->nr_vcpus > 1 ? "s" : "", vm->ram_size >> 20, (uint64_t)vm->ram,
		vm->entry.rip, p->weight, p->cap, p->con ? " type con" : "");
	sched_plat_vcpu_start(vm->vcpu[0]);
	return 0;
}

static const struct bootinfo_module *find_initrd(const struct boot_info *bi, int vmid)
{
	struct vm_params q;

	for (unsigned j = 0; j < bi->nr_modules; j++)
		if (!modstr_parse(bi->modules[j].string, &q) && q.vm == vmid &&
		    q.role == MOD_ROLE_INITRD)
			return &bi->modules[j];
	return NULL;
}

void vm_create_all(const struct boot_info *bi)
{
	static struct vm_params p;

	vm_exit_routes_check();   /* before any vCPU runs */
	console_input_set_state_dump(watchdog_dump);
	for (unsigned i = 0; i < bi->nr_modules && nr_vms < VM_MAX; i++) {
		int err;

		pr_info("vm: module %u: \"%s\"\n", i, bi->modules[i].string);
		if (modstr_parse(bi->modules[i].string, &p) || p.role != MOD_ROLE_KERNEL)
			continue;
		err = vm_create(&p, &bi->modules[i], find_initrd(bi, p.vm));
		if (err)
			pr_err("%s: not started (error %d)\n", p.name, err);
	}
	if (!nr_vms)
		pr_warn("vm: no VM to run (give modules with role=kernel)\n");
	WRITE_ONCE(vms_ready, true);
}

void vm_kick_vcpu(struct vcpu *v)
{
	sched_plat_notify(v);
}

void vm_wait_ready(void)
{
	while (!READ_ONCE(vms_ready))
		cpu_relax();
}

bool vm_all_dead(void)
{
	return READ_ONCE(vms_dead) == nr_vms;
}

void vm_stop(struct vm *vm, int status, const char *reason)
{
	if (__atomic_exchange_n(&vm->state, VM_DEAD, __ATOMIC_SEQ_CST) == VM_DEAD)
		return;
	vm->exit_status = status;
	vm->exit_reason = reason;
	for (unsigned i = 0; i < vm->nr_vcpus; i++)   /* none re-enters on its fast path */
		if (vm->vcpu[i])
			WRITE_ONCE(vm->vcpu[i]->kicked, true);
	pr_info("%s: ended status=%d reason=%s\n", vm->p.name, status, reason);
	vprof_plat_vm_end(vm);
	sched_plat_vm_stopped(vm);
	__atomic_fetch_add(&vms_dead, 1, __ATOMIC_SEQ_CST);
	for (unsigned c = 0; c < nr_cpus_online; c++)
		if (c != this_cpu_id())
			apic_send_ipi(percpu_area[c].apic_id, VEC_KICK);
}

/* A clean end: power-off (0), isa-debug-exit with 0 (status 1, QEMU's
 * convention as kvm-unit-tests read it), or a guest-requested reset. */
static bool vm_succeeded(const struct vm *vm)
{
	return vm->exit_status == VM_STOP_POWEROFF || vm->exit_status == VM_STOP_DEBUGEXIT_OK ||
	       vm->exit_status == VM_STOP_RESET;
}

void vm_print_exits(struct vm *vm)
{
	spin_lock(&vm->lock);
	hcall_limits_report(vm);
	spin_unlock(&vm->lock);
	for (unsigned i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = vm->vcpu[i];
		struct sched_vcpu_stats st;
		char line[256];
		int n = 0;

		for (unsigned r = 0; r < EXIT_REASON_MAX && n < 200; r++)
			if (v->exits[r])
				n += fmt_snprintf(line + n, sizeof(line) - (size_t)n, " %u:%lu", r,
						  v->exits[r]);
		line[n] = '\0';
		pr_info("summary:   %s vcpu%u exits by reason:%s\n", vm->p.name, i, line);
		sched_vcpu_stats(&v->sv, time_now(), &st);
		pr_info("summary:   %s vcpu%u ms running %ld runnable %ld blocked %ld offline %ld; "
			"preempt %lu yield %lu wake %lu; pcpu %u flags %#x\n", vm->p.name, i,
			st.time[SCHED_RUNNING] / 1000000, st.time[SCHED_RUNNABLE] / 1000000,
			st.time[SCHED_BLOCKED] / 1000000, st.time[SCHED_OFFLINE] / 1000000,
			st.npreempt, st.nyield, st.nwake, v->sv.pcpu, v->sv.flags);
		if (st.nsa_upcall || st.nsa_stale || st.nsleep || st.nsleep_cancel)
			pr_info("summary:   %s vcpu%u pv sa_upcall %lu ack_yield %lu ack_block %lu "
				"stale %lu timeout %lu moot %lu sleep %lu sleep_cancel %lu\n",
				vm->p.name, i, st.nsa_upcall, st.nsa_ack_yield, st.nsa_ack_block,
				st.nsa_stale, st.nsa_timeout, st.nsa_moot, st.nsleep, st.nsleep_cancel);
		if (st.npoll)   /* halt polling (hv/sched/haltpoll.c) */
			pr_info("summary:   %s vcpu%u halt polls %lu woken %lu poll us %ld window ns %ld\n",
				vm->p.name, i, st.npoll, st.npoll_ok, st.poll_time / 1000,
				v->sv.halt_poll_ns);
		if (v->vmx.vid_held)   /* apicv_vid_gate (vmx/apicv.c, vm/vcpu_exit.c) */
			pr_info("summary:   %s vcpu%u vid gate held %lu released at exit %lu\n",
				vm->p.name, i, v->vmx.vid_held, v->vid_released);
		if (v->hlt_delivered)   /* no gate: HLT ended by a deliverable RVI (vm/vcpu_exit.c) */
			pr_info("summary:   %s vcpu%u hlt ended at exit by rvi %lu\n",
				vm->p.name, i, v->hlt_delivered);
		if (v->nrekick)   /* vcpu_run(): a kick taken with interrupts on before the entry */
			pr_info("summary:   %s vcpu%u kicks re-raised at entry %lu\n", vm->p.name, i,
				v->nrekick);
		kvm_pv_vcpu_print(v);
	}
}

void vm_finish(void)
{
	int failed = 0;

	for (unsigned i = 0; i < nr_vms; i++) {
		struct vm *vm = vms[i];
		uint64_t exits = 0;

		for (unsigned j = 0; j < vm->nr_vcpus; j++)
			exits += vm->vcpu[j]->exits_total;
		pr_info("summary: %s status=%d reason=%s exits=%lu %s\n", vm->p.name,
			vm->exit_status, vm->exit_reason, exits, vm_succeeded(vm) ? "ok" : "FAILED");
		vm_print_exits(vm);
		failed += !vm_succeeded(vm);
	}
	pcpu_print();
	vprof_plat_shutdown();
	hv_exit(failed ? 1 : 0, nr_vms ? "all-vms-ended" : "no-vms");
}
