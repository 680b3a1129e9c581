/* Host interrupt and exception dispatch: isr.asm's stubs call trap_dispatch,
 * which runs the vector's registered handler (the IDT that points at the stubs
 * is idt.c). An exception in the hypervisor itself is corrupted host state:
 * dump the frame and panic, unless the instruction is listed in the exception
 * table (arch/x86/extable.h). */
#include "arch/x86/trap.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/apic.h"
#include "arch/x86/extable.h"
#include "log.h"

static irq_handler_fn handlers[256];

static const char *const exc_names[32] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "#09", "#TS", "#NP",
	"#SS", "#GP", "#PF", "#15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
};

void irq_register(unsigned vector, irq_handler_fn fn)
{
	handlers[vector & 0xff] = fn;
}

static void dump_frame(struct trap_frame *f)
{
	pr_err("rip=%016lx cs=%lx rflags=%lx rsp=%016lx err=%lx cr2=%016lx\n",
	       f->rip, f->cs, f->rflags, f->rsp, f->error, read_cr2());
	pr_err("rax=%016lx rbx=%016lx rcx=%016lx rdx=%016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
	pr_err("rsi=%016lx rdi=%016lx rbp=%016lx r8=%016lx\n", f->rsi, f->rdi, f->rbp, f->r8);
	pr_err("r9=%016lx r10=%016lx r11=%016lx r12=%016lx\n", f->r9, f->r10, f->r11, f->r12);
	pr_err("r13=%016lx r14=%016lx r15=%016lx cr3=%016lx\n", f->r13, f->r14, f->r15, read_cr3());
}

void trap_dispatch(struct trap_frame *f)
{
	unsigned v = (unsigned)f->vector;

	if (handlers[v]) {
		handlers[v](f);
		return;
	}
	if (v >= 32) {
		pr_warn("trap: unexpected interrupt vector %u on cpu%u\n", v, this_cpu_id());
		apic_eoi();
		return;
	}
	/* A listed instruction (rdmsr_safe/wrmsr_safe) faulted: resume at its fixup. */
	if (extable_fixup(f))
		return;
	pr_err("trap: exception %s (vector %u) in the hypervisor on cpu%u\n",
	       exc_names[v] ? exc_names[v] : "?", v, this_cpu_id());
	dump_frame(f);
	panic("unhandled exception %u", v);
}
