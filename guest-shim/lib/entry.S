/*
 * Entry of the guest test kernels (multiboot 0.6.96 section 3.2 contract):
 * EAX = 0x2BADB002, EBX = boot information, 32-bit protected mode, paging off,
 * interrupts off, GDTR and stack unspecified. Records the entry GDTR, CS and
 * DS (boot_entry_*: what the loader left, checked by test conform), loads our GDT, zeroes .bss and,
 * in the 64-bit build, identity-maps 4 GiB and enters long mode (SDM Vol. 3
 * 10.8.5). The AP trampoline (copied to low memory, entered by SIPI in real
 * mode at vector*4 KiB, SDM Vol. 3 10.4.4) lands in ap_entry32.
 * Build with -DGUEST_AOUT to add the a.out-kludge address fields.
 */
#include "asm.h"

#ifdef GUEST_AOUT
#define MB_FLAGS (MB1_F_PAGE_ALIGN | MB1_F_MEMINFO | MB1_F_AOUT)
#else
#define MB_FLAGS (MB1_F_PAGE_ALIGN | MB1_F_MEMINFO)
#endif

/* PAE + EFER.LME + paging, then a far jump into the 64-bit code segment. */
.macro LONG_MODE_ENTER target
	movl	%cr4, %eax
	orl	$CR4_PAE, %eax
	movl	%eax, %cr4
	movl	$pml4, %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$EFER_LME, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$CR0_PG, %eax
	movl	%eax, %cr0
	ljmp	$SEL_CODE64, $\target
.endm

.macro LOAD_DATA_SEGS
	movl	$SEL_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %fs
	movl	%eax, %gs
	movl	%eax, %ss
.endm

	.section .text.entry, "ax"
	.code32
	.globl	_start
_start:
	jmp	mb_entry
	.p2align 2
mb_header:
	.long	MB1_MAGIC
	.long	MB_FLAGS
	.long	-(MB1_MAGIC + MB_FLAGS)
#ifdef GUEST_AOUT
	.long	mb_header, __image_start, __data_end, __bss_end, _start
#endif

mb_entry:
	cli
	cld
	movl	%eax, boot_magic
	movl	%ebx, boot_info
	sgdt	boot_entry_gdtr            /* the loader's GDT, for test conform */
	movw	%cs, boot_entry_cs
	movw	%ds, boot_entry_ds
	lgdt	gdt_desc
	ljmp	$SEL_CODE32, $1f
1:	LOAD_DATA_SEGS
	movl	$__bss_start, %edi         /* the boot stack is in .bss: unused yet */
	movl	$__bss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb
	movl	$bsp_stack + BSP_STACK_SIZE, %esp
#ifdef __x86_64__
	call	pt_build
	LONG_MODE_ENTER bsp64
	.code64
bsp64:
	LOAD_DATA_SEGS
	movl	%esp, %esp                 /* upper half undefined after the switch */
	movl	boot_magic, %edi
	movl	boot_info, %esi
	call	lib_start
#else
	pushl	boot_info
	pushl	boot_magic
	call	lib_start
#endif
	.globl	cpu_halt_forever
cpu_halt_forever:
	cli
	hlt
	jmp	cpu_halt_forever

	.code32
#ifdef __x86_64__
/* PML4[0] -> PDPT; PDPT[0..3] -> 4 PDs of 2 MiB pages (the 4th uncached:
 * LAPIC/IOAPIC MMIO); PDPT[8] -> one page at FAR_TEST_GPA. */
pt_build:
	movl	$pdpt + 3, pml4
	xorl	%ecx, %ecx
1:	movl	%ecx, %eax
	shll	$12, %eax
	addl	$pd + 3, %eax
	movl	%eax, pdpt(,%ecx,8)
	incl	%ecx
	cmpl	$4, %ecx
	jb	1b
	xorl	%ecx, %ecx
2:	movl	%ecx, %eax
	shll	$21, %eax
	orl	$0x83, %eax                /* present, writable, 2 MiB */
	cmpl	$1536, %ecx
	jb	3f
	orl	$0x18, %eax                /* PCD | PWT above 3 GiB */
3:	movl	%eax, pd(,%ecx,8)
	incl	%ecx
	cmpl	$2048, %ecx
	jb	2b
	movl	$pd_far + 3, pdpt + FAR_TEST_PDPT * 8
	movl	$0x9b, pd_far
	movl	$(FAR_TEST_GPA >> 32), pd_far + 4
	ret
#endif

/* APs arrive from the trampoline in 32-bit mode with our GDT loaded. */
	.globl	ap_entry32
ap_entry32:
	LOAD_DATA_SEGS
	movl	LAPIC_MMIO + LAPIC_REG_ID, %eax
	shrl	$24, %eax
	andl	$(GUEST_MAX_CPUS - 1), %eax
	incl	%eax
	imull	$AP_STACK_SIZE, %eax
	addl	$ap_stacks, %eax
	movl	%eax, %esp
#ifdef __x86_64__
	movl	%eax, %ebx
	LONG_MODE_ENTER ap64
	.code64
ap64:
	LOAD_DATA_SEGS
	movl	%ebx, %esp
#endif
	call	ap_main
	jmp	cpu_halt_forever

/* Real-mode AP trampoline: position independent (DS = CS), copied to
 * vector * 4 KiB; vector 0 puts it at address 0. */
	.code16
	.globl	ap_tramp_start, ap_tramp_end
ap_tramp_start:
	cli
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	lgdtl	tramp_gdt_desc - ap_tramp_start
	movl	%cr0, %eax
	orl	$CR0_PE, %eax
	movl	%eax, %cr0
	ljmpl	*(tramp_farptr - ap_tramp_start)
	.p2align 2
tramp_farptr:
	.long	ap_entry32
	.word	SEL_CODE32
tramp_gdt_desc:
	.word	gdt_end - gdt - 1
	.long	gdt
ap_tramp_end:

	.section .data
	.p2align 3
gdt:
	.quad	0
	.quad	0x00cf9a000000ffff         /* 0x08 code, 32-bit, flat */
	.quad	0x00cf92000000ffff         /* 0x10 data, flat */
	.quad	0x00af9a000000ffff         /* 0x18 code, 64-bit (L=1) */
gdt_end:
gdt_desc:
	.word	gdt_end - gdt - 1
	.long	gdt
	.globl	boot_magic, boot_info
boot_magic:
	.long	0
boot_info:
	.long	0
	.globl	boot_entry_gdtr, boot_entry_cs, boot_entry_ds
boot_entry_gdtr:                           /* limit (2 bytes), base (4 bytes) */
	.skip	6
boot_entry_cs:
	.word	0
boot_entry_ds:
	.word	0

	.section .bss
	.p2align 12
#ifdef __x86_64__
pml4:	.skip	4096
pdpt:	.skip	4096
pd:	.skip	4 * 4096
pd_far:	.skip	4096
#endif
bsp_stack:
	.skip	BSP_STACK_SIZE
	.globl	ap_stacks
ap_stacks:
	.skip	AP_STACK_SIZE * GUEST_MAX_CPUS
