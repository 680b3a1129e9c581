; Multiboot2 header and the BSP's 32-bit to 64-bit entry.
;
; Register contract at _start (Multiboot2 spec §3.3, i386 machine state):
;   EAX = 0x36D76289, EBX = physical address of the boot information,
;   protected mode, paging off, CS/DS/ES/SS flat 4 GiB, interrupts off.
;   The stack is undefined; A20 is on.
; We build an identity map of the first 4 GiB (2 MiB pages, the top GiB
; uncached for MMIO), enter long mode (SDM vol. 3 §10.8.5) and call
; hv_main(magic, mbi) with RDI/RSI holding EAX/EBX.

%include "defs.inc"

section .multiboot2
align 8
mb2_header:
	dd MB2_HEADER_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	; Ask GRUB to page-align modules so guest images can be used in place.
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
	mov esp, boot_stack_top
	mov [boot_magic], eax
	mov [boot_mbi], ebx

	cmp eax, MB2_BOOTLOADER_MAGIC
	mov al, ERR_NOT_MULTIBOOT2
	jne early_fail

	; Long mode present? (CPUID.80000001h:EDX.LM)
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	mov al, ERR_NO_LONG_MODE
	jb early_fail
	mov eax, 0x80000001
	cpuid
	bt edx, CPUID_EXT_LM_BIT
	mov al, ERR_NO_LONG_MODE
	jnc early_fail

	call build_page_tables

	; PAE, then EFER.LME, then CR0.PG activates IA-32e mode (SDM §10.8.5).
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, MSR_IA32_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE | CR0_WP
	mov cr0, eax

	lgdt [boot_gdtr]
	jmp SEL_CODE64:long_entry

; Identity map 0..4 GiB: PML4[0] -> PDPT, PDPT[0..3] -> 4 page directories of
; 2 MiB pages. The fourth GiB holds the LAPIC/IOAPIC and other MMIO: map it
; PCD|PWT so it is uncached whatever the MTRRs say.
build_page_tables:
	mov edi, boot_pd
	xor ecx, ecx
.pde:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	cmp ecx, 3 * 512
	jb .cached
	or eax, PTE_PCD | PTE_PWT
.cached:
	mov [edi + ecx * 8], eax
	mov dword [edi + ecx * 8 + 4], 0
	inc ecx
	cmp ecx, 4 * 512
	jb .pde

	mov edi, boot_pdpt
	xor ecx, ecx
.pdpte:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [edi + ecx * 8], eax
	mov dword [edi + ecx * 8 + 4], 0
	inc ecx
	cmp ecx, 4
	jb .pdpte

	mov eax, boot_pdpt
	or eax, PTE_P | PTE_W
	mov [boot_pml4], eax
	ret

; Print "BOOT ERR <AL>" on COM1 and port 0xE9, then halt. The UART is
; programmed 115200 8N1 first: Bochs honours the word length.
early_fail:
	mov bl, al
	mov dx, 0x3f8 + 3
	mov al, 0x80
	out dx, al
	mov dx, 0x3f8
	mov al, 1
	out dx, al
	mov dx, 0x3f8 + 1
	xor al, al
	out dx, al
	mov dx, 0x3f8 + 3
	mov al, 0x03
	out dx, al
	mov esi, early_msg
.next:
	lodsb
	test al, al
	jz .code
	call early_putc
	jmp .next
.code:
	mov al, bl
	call early_putc
	mov al, 10
	call early_putc
.halt:
	hlt
	jmp .halt

early_putc:
	mov ah, al
	mov dx, 0x3f8 + 5
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	mov dx, 0x3f8
	mov al, ah
	out dx, al
	mov dx, 0xe9
	out dx, al
	ret

bits 64
extern hv_main, __bss_start, __bss_end
long_entry:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rsp, boot_stack_top
	; Clear .bss (the page tables and this stack live in .data/.boot_bss).
	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	xor eax, eax
	rep stosb
	mov edi, [boot_magic]
	mov esi, [boot_mbi]
	call hv_main
.hang:
	cli
	hlt
	jmp .hang

section .rodata
early_msg: db "BOOT ERR ", 0

align 16
boot_gdt:
	dq 0
	dq 0x00cf9a000000ffff          ; 0x08 code32
	dq 0x00cf92000000ffff          ; 0x10 data
	dq 0x00af9a000000ffff          ; 0x18 code64 (L=1)
boot_gdt_end:
boot_gdtr:
	dw boot_gdt_end - boot_gdt - 1
	dq boot_gdt

; Page tables and the boot stack live in .data (not .bss): .bss is cleared
; after we are already running on them.
section .data
align 4096
global boot_pml4
global boot_pdpt
boot_pml4:  times 512 dq 0
boot_pdpt:  times 512 dq 0
boot_pd:    times 4 * 512 dq 0
align 16
boot_stack: times BOOT_STACK_SIZE db 0
global boot_stack_top
boot_stack_top:
boot_magic: dd 0
boot_mbi:   dd 0
