; AP start-up trampoline, copied by the BSP to a page below 1 MiB
; (hv/arch/x86/smp.c) and entered by a SIPI in real mode at CS:IP = page:0.
; Register contract on entry: real mode, CS = page << 8 >> 4, IP = 0, all else
; undefined. The BSP fills the t_* parameter block before each SIPI.
; Real mode -> protected mode -> IA-32e (SDM vol. 3 §10.8.5), then it calls
; t_entry(t_cpu) on t_stack with the BSP's page tables.
; Only offsets relative to tramp_start are used, so the code needs no relocation.

%include "defs.inc"

section .rodata
global tramp_start, tramp_end
global t_gdtr_base, t_farptr, t_cr3, t_stack, t_entry, t_cpu, t_pm32, t_gdt

%define OFF(x) ((x) - tramp_start)

bits 16
tramp_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	xor ebx, ebx
	mov bx, ax
	shl ebx, 4                      ; EBX = linear base of the trampoline
	lgdt [OFF(t_gdtr)]
	mov eax, cr0
	or eax, CR0_PE
	mov cr0, eax
	o32 jmp far [OFF(t_farptr)]

bits 32
t_pm32:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	lea esp, [ebx + 0xff0]          ; scratch stack at the top of the page
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, [ebx + OFF(t_cr3)]
	mov cr3, eax
	mov ecx, MSR_IA32_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE | CR0_WP
	mov cr0, eax
	lea eax, [ebx + OFF(t_lm64)]
	push dword SEL_CODE64
	push eax
	retf

bits 64
t_lm64:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [rbx + OFF(t_stack)]
	mov edi, [rbx + OFF(t_cpu)]
	mov rax, [rbx + OFF(t_entry)]
	call rax
.hang:
	cli
	hlt
	jmp .hang

align 16
t_gdt:
	dq 0
	dq 0x00cf9a000000ffff          ; 0x08 code32
	dq 0x00cf92000000ffff          ; 0x10 data
	dq 0x00af9a000000ffff          ; 0x18 code64
t_gdtr:
	dw 4 * 8 - 1
t_gdtr_base:
	dd 0                            ; filled: base + OFF(t_gdt)
align 4
t_farptr:
	dd 0                            ; filled: base + OFF(t_pm32)
	dw SEL_CODE32
align 8
t_cr3:   dq 0
t_stack: dq 0
t_entry: dq 0
t_cpu:   dd 0
tramp_end:
