; Interrupt and exception entry stubs for the host IDT.
; Each stub leaves the CPU frame plus [error code, vector] on the stack, then
; the common path saves the general registers into a struct trap_frame
; (hv/arch/x86/trap.h; keep the order in sync) and calls trap_dispatch(frame).

bits 64
section .text

extern trap_dispatch

%macro STUB_NOERR 1
isr_%1:
	push 0
	push %1
	jmp isr_common
%endmacro
%macro STUB_ERR 1
isr_%1:
	push %1
	jmp isr_common
%endmacro

; Vectors that push an error code (SDM vol. 3 §6.3.1, Table 6-1).
%assign v 0
%rep 256
%if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
	STUB_ERR v
%else
	STUB_NOERR v
%endif
%assign v v+1
%endrep

isr_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	cld
	call trap_dispatch
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16
	iretq

section .rodata
global isr_table
align 8
isr_table:
%assign v 0
%rep 256
	dq isr_ %+ v
%assign v v+1
%endrep
