; bareload: Multiboot2 entry and the final jump into Linux.
;
; GRUB enters _start in 32-bit protected mode, paging off, EAX = 0x36D76289,
; EBX = boot information (Multiboot2 spec §3.3). We map 0..4 GiB twice with
; 2 MiB pages: identity (where this image runs) and at 4 GiB, the alias through
; which the C code addresses physical memory (so that "RAM at physical 0" is a
; non-null pointer), enter long mode (SDM Vol. 3A §10.8.5) and call
; bareload_main(magic, mbi).
;
; bareload_jump(const struct bl_jump *j) leaves with the register state of
; the Linux 64-bit boot protocol (Documentation/arch/x86/boot.rst, "64-bit
; Boot Protocol") that load_bzimage() describes in struct guest_entry: its
; page tables, GDT, segments, CR0/CR4, RSI = zero page, IF = 0, the other
; general registers 0 -- the state the hypervisor gives the VM's vCPU 0.

%include "defs.inc"

; struct bl_jump (tools/linux/bareload/bareload.h): offsets checked there.
%define J_CR3       0
%define J_RIP       8
%define J_RSI       16
%define J_RSP       24
%define J_CR0       32
%define J_CR4       40
%define J_GDTR      48      ; limit (2 bytes) then base (8): an lgdt operand
%define J_CS        58
%define J_DS        60

section .multiboot2
align 8
mb2_header:
	dd MB2_HEADER_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	align 8
	dw MB2_HDR_TAG_MODALIGN, 0
	dd 8
	align 8
	dw MB2_HDR_TAG_END, 0
	dd 8
mb2_header_end:

section .text.boot
bits 32
global _start
_start:
	cli
	cld
	mov esp, bl_stack_top
	mov [bl_magic], eax
	mov [bl_mbi], ebx
	call bl_page_tables
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, bl_pml4
	mov cr3, eax
	mov ecx, MSR_IA32_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE
	mov cr0, eax
	lgdt [bl_gdtr]
	jmp SEL_CODE64:bl_long

; PD: 2048 entries of 2 MiB covering 0..4 GiB; PDPT[0..3] and PDPT[4..7]
; both point at it (identity and +4 GiB alias).
bl_page_tables:
	mov edi, bl_pd
	xor ecx, ecx
.pde:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [edi + ecx * 8], eax
	mov dword [edi + ecx * 8 + 4], 0
	inc ecx
	cmp ecx, 4 * 512
	jb .pde
	mov edi, bl_pdpt
	xor ecx, ecx
.pdpte:
	mov eax, ecx
	and eax, 3
	shl eax, 12
	add eax, bl_pd
	or eax, PTE_P | PTE_W
	mov [edi + ecx * 8], eax
	mov dword [edi + ecx * 8 + 4], 0
	inc ecx
	cmp ecx, 8
	jb .pdpte
	mov eax, bl_pdpt
	or eax, PTE_P | PTE_W
	mov [bl_pml4], eax
	ret

bits 64
extern bareload_main, __bss_start, __bss_end
bl_long:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rsp, bl_stack_top
	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	xor eax, eax
	rep stosb
	mov edi, [bl_magic]
	mov esi, [bl_mbi]
	call bareload_main
.hang:
	cli
	hlt
	jmp .hang

global bareload_jump
bareload_jump:
	cli
	mov rax, [rdi + J_CR3]      ; Linux's tables identity-map this code too
	mov cr3, rax
	lgdt [rdi + J_GDTR]
	mov ax, [rdi + J_DS]
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov fs, ax
	mov gs, ax
	mov rax, [rdi + J_CR4]
	mov cr4, rax
	mov rax, [rdi + J_CR0]
	mov cr0, rax
	mov rsp, [rdi + J_RSP]
	movzx eax, word [rdi + J_CS]
	push rax
	push qword [rdi + J_RIP]
	mov rsi, [rdi + J_RSI]
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor edx, edx
	xor edi, edi
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
	o64 retf

section .rodata
align 16
bl_gdt:
	dq 0
	dq 0x00cf9a000000ffff          ; 0x08 code32
	dq 0x00cf92000000ffff          ; 0x10 data
	dq 0x00af9a000000ffff          ; 0x18 code64 (L=1)
bl_gdt_end:
bl_gdtr:
	dw bl_gdt_end - bl_gdt - 1
	dq bl_gdt

; Page tables and stack in .data: .bss is cleared while we run on them.
section .data
align 4096
bl_pml4:   times 512 dq 0
bl_pdpt:   times 512 dq 0
bl_pd:     times 2048 dq 0
bl_stack:  times 16384 db 0
bl_stack_top:
bl_magic:  dd 0
bl_mbi:    dd 0
