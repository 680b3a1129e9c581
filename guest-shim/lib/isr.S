/*
 * Interrupt/exception stubs for all 256 vectors, 16 bytes apart from
 * isr_stubs (so the IDT builder needs no table). Vectors whose exceptions
 * push an error code (SDM Vol. 3 6.13: 8, 10-14, 17, 21, 29, 30) skip the
 * dummy push. isr_common saves the GPRs into a struct isr_frame (idt.h),
 * calls isr_dispatch(frame) and returns with whatever the frame then holds.
 */
	.altmacro
	.text
.macro STUB vec
	.org	isr_stubs + \vec * 16
	.if (\vec == 8 || (\vec >= 10 && \vec <= 14) || \vec == 17 || \vec == 21 || \vec == 29 || \vec == 30)
	.else
	push	$0
	.endif
	push	$\vec
	jmp	isr_common
.endm

	.p2align 4
	.globl	isr_stubs
isr_stubs:
	.set	vec, 0
	.rept	256
	STUB	%vec
	.set	vec, vec + 1
	.endr
	.org	isr_stubs + 256 * 16

#ifdef __x86_64__
isr_common:
	push	%rax
	push	%rcx
	push	%rdx
	push	%rbx
	push	%rbp
	push	%rsi
	push	%rdi
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	cld
	movq	%rsp, %rdi                 /* 16-byte aligned here (SDM 6.14.2) */
	call	isr_dispatch
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdi
	pop	%rsi
	pop	%rbp
	pop	%rbx
	pop	%rdx
	pop	%rcx
	pop	%rax
	addq	$16, %rsp                  /* vector, error code */
	iretq
#else
isr_common:
	pushal
	cld
	pushl	%esp
	call	isr_dispatch
	addl	$4, %esp
	popal
	addl	$8, %esp
	iretl
#endif
