/* Boot order of the hypervisor: console, CPU tables, boot information and
 * command line, memory, time, APIC, platform discovery, SMP, VMX, then VMs. */
#include "hv.h"
#include "log.h"
#include "console.h"
#include "cmdline.h"
#include "bootinfo.h"
#include "platform.h"
#include "mm/pmm.h"
#include "memory.h"
#include "cpu.h"
#include "vm/vm.h"
#include "vm/sched_platform.h"
#include "vm/vprof_platform.h"
#include "vm/vcpu_pmu.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/trap.h"
#include "arch/x86/apic.h"
#include "arch/x86/time.h"
#include "arch/x86/smp.h"
#include "arch/x86/pic.h"
#include "vmx/caps.h"
#include "vmx/fpu.h"
#include "vmx/apicv.h"

struct boot_info boot_info;
static volatile bool vmx_go;
static volatile unsigned vmx_on_count;
static volatile int vmx_on_errors;

static void wake_handler(struct trap_frame *f)
{
	apic_eoi();
}

static void stop_handler(struct trap_frame *f)
{
	vmx_cpu_off();
	for (;;)
		cpu_halt();
}

static void cpu_vmx_on(void)
{
	if (vmx_cpu_on() == 0)
		__atomic_fetch_add(&vmx_on_count, 1, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_add(&vmx_on_errors, 1, __ATOMIC_SEQ_CST);
}

void hv_ap_main(unsigned cpu)
{
	percpu_init(cpu, percpu_area[cpu].apic_id);
	cpu_bind(cpu);
	idt_load();
	fpu_host_init();
	apic_init(false);
	pr_info("smp: cpu%u online apic=%u\n", cpu, apic_id());
	__atomic_fetch_add(&nr_cpus_online, 1, __ATOMIC_SEQ_CST);
	WRITE_ONCE(percpu_area[cpu].online, true);
	/* Halted, not spinning, until the BSP's VEC_WAKE: with many CPUs (or 128
	 * emulated ones on two host cores) spinning APs starved the BSP still
	 * starting the others, past their 1 s check-in time. sti;hlt cannot
	 * miss a wake-up sent after the test. */
	while (!READ_ONCE(vmx_go)) {
		irq_disable();
		if (!READ_ONCE(vmx_go))
			cpu_safe_halt();
	}
	irq_disable();
	cpu_vmx_on();
	vm_cpu_loop();
}

static void boot_cpus(void)
{
	paddr_t tramp = pmm_alloc_pages(1, 0, MiB(1));
	unsigned want = opt_maxcpus > 0 ? (unsigned)opt_maxcpus : MAX_CPUS;
	unsigned n;

	percpu_area[0].apic_id = apic_id();
	percpu_area[0].online = true;
	nr_cpus_online = 1;
	pr_info("smp: cpu0 online apic=%u\n", percpu_area[0].apic_id);
	if (!host_platform.nr_cpus_enabled)
		host_apic_ids[0] = percpu_area[0].apic_id;
	if (!tramp) {
		pr_err("smp: no free page below 1 MiB for the AP trampoline; running on one CPU\n");
		return;
	}
	n = smp_boot(host_apic_ids, host_nr_apic_ids, want, tramp, hv_ap_main);
	pr_info("smp: %u of %u CPUs online\n", n, host_nr_apic_ids);
}

static void start_vmx(void)
{
	const char *why;

	if (vmx_detect(&why)) {
		pr_err("vmx: VT-x not available: %s\n", why);
		hv_exit(3, "no-vmx");
	}
	vmx_caps_read();
	vmx_caps_print();
	cpu_vmx_on();
	WRITE_ONCE(vmx_go, true);
	apic_ipi_others(VEC_WAKE);
	uint64_t end = rdtsc() + tsc_hz;
	while (vmx_on_count + vmx_on_errors < nr_cpus_online && rdtsc() < end)
		cpu_relax();
	if (vmx_on_count != nr_cpus_online) {
		pr_err("vmx: VMXON succeeded on %u of %u CPUs\n", vmx_on_count, nr_cpus_online);
		hv_exit(4, "vmxon-failed");
	}
	pr_info("vmx: VMXON on all %u CPUs\n", vmx_on_count);
}

void hv_main(uint32_t magic, uint32_t mbi)
{
	console_init();
	percpu_init(0, 0);
	cpu_bind(0);
	idt_init();
	idt_load();
	fpu_host_init();
	irq_register(VEC_STOP, stop_handler);
	irq_register(VEC_WAKE, wake_handler);
	irq_register(VEC_SPURIOUS, apic_spurious_irq);
	pr_info("hv: research hypervisor %s\n", HV_VERSION);
	if (bootinfo_parse(magic, (const void *)(uintptr_t)mbi, &boot_info))
		hv_exit(5, "bad-boot-info");
	if (cmdline_parse(boot_info.cmdline))
		pr_warn("cmdline: problems above; those options keep their defaults\n");
	console_set_e9(opt_console & CONSOLE_E9);
	pr_info("cmdline: \"%s\"\n", boot_info.cmdline);
	cmdline_print_effective();
	bootinfo_print(&boot_info);
	host_platform_init(&boot_info);   /* allocates nothing; mm_init keeps its tables */
	if (mm_init(&boot_info))
		hv_exit(6, "no-memory");
	pic_disable();
	time_init();
	apic_init(true);
	apic_calibrate();
	boot_cpus();
	pmu_init();        /* before VMX: QEMU TCG stops at start_vmx */
	start_vmx();
	apicv_host_init();   /* the VID gate's self-test: BSP, before any VM */
	vcpu_pmu_init();
	sched_plat_init();
	vprof_plat_init(&boot_info);
	vm_create_all(&boot_info);
	vm_cpu_loop();
}
