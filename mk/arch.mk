# Boot path, x86 platform and VMX enablement (the image only).
HV_SRCS += boot/entry.asm boot/trampoline.asm \
	hv/arch/x86/isr.asm hv/arch/x86/trap.c hv/arch/x86/percpu.c hv/arch/x86/serial.c \
	hv/arch/x86/apic.c hv/arch/x86/time.c hv/arch/x86/smp.c hv/arch/x86/pic.c \
	hv/console.c hv/exit.c hv/main.c hv/vmx/vmx.c
