; hvrun self-test kernel: a tiny 32-bit multiboot2 image that stands in for the
; hypervisor so tools/hvrun can be tested on its own. It prints the serial
; contract of docs/running.md on COM1 (banner, the command line and module
; strings GRUB handed over, an HVRUN-EXIT line) and then ends the emulator the
; way the hypervisor does (exit=qemu: isa-debug-exit; exit=bochs: magic break
; and port 0x8900). A word test=<mode> on its command line picks what it does:
;   pass (default) | fail | panic (then hang) | hang | reset (triple fault) | novtx
;   | keys (print each byte received on COM1 until a 'q', then pass: --send-key)
;
; Register contract (Multiboot2 spec 1.0, section 3.3 "I386 machine state"):
;   EAX = 0x36d76289, EBX = physical address of the boot information,
;   32-bit protected mode, paging off, interrupts off, stack undefined.

bits 32

MB2_MAGIC          equ 0xe85250d6
MB2_ARCH_I386      equ 0
MB2_BOOT_MAGIC     equ 0x36d76289
MB2_HTAG_END       equ 0
MB2_HTAG_ADDRESS   equ 2
MB2_HTAG_ENTRY     equ 3
MB2_TAG_END        equ 0
MB2_TAG_CMDLINE    equ 1
MB2_TAG_MODULE     equ 3
LOAD_ADDR          equ 0x200000       ; same place as build/hv.elf

COM1               equ 0x3f8
UART_THR           equ 0
UART_IER           equ 1
UART_FCR           equ 2
UART_LCR           equ 3
UART_MCR           equ 4
UART_LSR           equ 5
UART_LSR_DR        equ 0x01           ; a received byte is waiting
UART_LSR_THRE      equ 0x20
UART_LSR_TEMT      equ 0x40           ; transmitter empty: last bit is out
UART_LCR_DLAB      equ 0x80
UART_LCR_8N1       equ 0x03

QEMU_DEBUG_EXIT    equ 0xf4           ; -device isa-debug-exit,iobase=0xf4
BOCHS_SHUTDOWN     equ 0x8900         ; "Shutdown" written here ends Bochs

CPUID1_ECX_VMX     equ 1 << 5

	org LOAD_ADDR

; ------------------------------------------------------------ multiboot2 header
align 8
mb2_header:
	dd MB2_MAGIC, MB2_ARCH_I386, mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
align 8
	dw MB2_HTAG_ADDRESS, 0
	dd 24, mb2_header, LOAD_ADDR, load_end, bss_end
align 8
	dw MB2_HTAG_ENTRY, 0
	dd 12, entry
align 8
	dw MB2_HTAG_END, 0
	dd 8
mb2_header_end:

; ------------------------------------------------------------ entry
entry:
	cli
	mov esp, stack_top
	mov [boot_magic], eax
	mov [boot_info], ebx
	call uart_init
	mov esi, s_banner
	call puts_line
	cmp dword [boot_magic], MB2_BOOT_MAGIC
	jne .bad_magic
	call mbi_walk
	call vmx_report
	jmp dispatch
.bad_magic:
	mov esi, s_bad_magic
	call puts_line
	jmp hang

; Walk the boot information tags (Multiboot2 spec section 3.6): print the
; command line and each module's string and size, exactly as received.
mbi_walk:
	mov ebx, [boot_info]
	add ebx, 8                      ; skip total_size and reserved
.next:
	mov eax, [ebx]
	cmp eax, MB2_TAG_END
	je .done
	cmp eax, MB2_TAG_CMDLINE
	jne .not_cmdline
	lea esi, [ebx + 8]
	mov [cmdline], esi
	mov esi, s_cmdline
	call puts
	mov esi, [cmdline]
	call puts_bracketed
	jmp .advance
.not_cmdline:
	cmp eax, MB2_TAG_MODULE
	jne .advance
	mov esi, s_module
	call puts
	mov eax, [ebx + 12]
	sub eax, [ebx + 8]
	call put_hex
	mov al, ' '
	call putc
	lea esi, [ebx + 16]
	call puts_bracketed
.advance:
	mov eax, [ebx + 4]              ; tag size, then pad to 8 bytes
	add eax, 7
	and eax, ~7
	add ebx, eax
	jmp .next
.done:
	ret

; CPUID.1:ECX.VMX[bit 5] (SDM Vol. 3C 24.6 "Discovering support for VMX").
vmx_report:
	mov eax, 1
	cpuid
	test ecx, CPUID1_ECX_VMX
	jnz .has
	mov byte [no_vtx], 1
	mov esi, s_novmx
	call puts_line
	ret
.has:
	mov esi, s_hasvmx
	call puts_line
	ret

; ------------------------------------------------------------ modes
dispatch:
	mov edi, w_fail
	call cmdline_has
	jnz mode_fail
	mov edi, w_panic
	call cmdline_has
	jnz mode_panic
	mov edi, w_hang
	call cmdline_has
	jnz hang
	mov edi, w_reset
	call cmdline_has
	jnz mode_reset
	mov edi, w_novtx
	call cmdline_has
	jnz mode_novtx
	mov edi, w_keys
	call cmdline_has
	jnz mode_keys
mode_pass:
	mov esi, s_test_pass
	call puts_line
	mov esi, s_summary_pass
	call puts_line
	mov esi, s_exit_ok
	call puts_line
	mov al, 0
	jmp finish
mode_fail:
	mov esi, s_test_fail
	call puts_line
	mov esi, s_summary_fail
	call puts_line
	mov esi, s_exit_fail
	call puts_line
	mov al, 1
	jmp finish
mode_novtx:
	cmp byte [no_vtx], 1            ; already said so from CPUID
	je .said
	mov esi, s_novtx_forced
	call puts_line
.said:
	mov esi, s_exit_novtx
	call puts_line
	mov al, 3
	jmp finish
; Echo every byte of serial input as "testkernel: key 0x000000NN"; 'q' ends.
mode_keys:
	mov esi, s_keys_wait
	call puts_line
.poll:	mov dx, COM1 + UART_LSR
	in al, dx
	test al, UART_LSR_DR
	jz .poll
	mov dx, COM1 + UART_THR         ; RBR when read
	in al, dx
	movzx ebx, al
	mov esi, s_key
	call puts
	mov eax, ebx
	call put_hex
	call newline
	cmp bl, 'q'
	jne .poll
	jmp mode_pass
mode_panic:
	mov esi, s_panic
	call puts_line
	jmp hang
mode_reset:
	lidt [null_idt]                 ; no IDT: the breakpoint escalates to a triple fault
	int3
	jmp hang

; Leave the emulator the way exit=qemu / exit=bochs asks; AL = status.
; Wait for the UART to drain first: Bochs sends serial bytes in emulated time
; and would drop the line's last byte if the exit came straight after it.
finish:
	mov [exit_status], al
	mov dx, COM1 + UART_LSR
.drain:	in al, dx
	test al, UART_LSR_TEMT
	jz .drain
	mov edi, w_exit_qemu
	call cmdline_has
	jz .not_qemu
	mov al, [exit_status]
	out QEMU_DEBUG_EXIT, al         ; QEMU exits with (AL << 1) | 1
.not_qemu:
	mov edi, w_exit_bochs
	call cmdline_has
	jz hang
	xchg bx, bx                     ; magic break: the rc file's "quit" -> exit 0
	mov dx, BOCHS_SHUTDOWN
	mov esi, s_shutdown
.sd:	lodsb
	test al, al
	jz hang
	out dx, al
	jmp .sd

hang:
	cli
	hlt
	jmp hang

; ------------------------------------------------------------ helpers
; ZF clear when the NUL-terminated word at EDI occurs in the command line.
cmdline_has:
	push esi
	mov esi, [cmdline]
	test esi, esi
	jz .no
.outer:
	cmp byte [esi], 0
	je .no
	push esi
	push edi
.inner:
	mov al, [edi]
	test al, al
	jz .match
	cmp al, [esi]
	jne .mismatch
	inc esi
	inc edi
	jmp .inner
.mismatch:
	pop edi
	pop esi
	inc esi
	jmp .outer
.match:
	pop edi
	pop esi
	pop esi
	or eax, 1                       ; ZF = 0
	ret
.no:
	pop esi
	xor eax, eax                    ; ZF = 1
	ret

uart_init:
	mov dx, COM1 + UART_IER
	xor al, al
	out dx, al
	mov dx, COM1 + UART_LCR
	mov al, UART_LCR_DLAB
	out dx, al
	mov dx, COM1 + 0                ; divisor 1 = 115200 baud
	mov al, 1
	out dx, al
	mov dx, COM1 + 1
	xor al, al
	out dx, al
	mov dx, COM1 + UART_LCR         ; 8N1: Bochs honours the word length
	mov al, UART_LCR_8N1
	out dx, al
	mov dx, COM1 + UART_FCR
	mov al, 0xc7
	out dx, al
	mov dx, COM1 + UART_MCR
	mov al, 0x03
	out dx, al
	ret

putc:                                   ; AL = byte
	push edx
	push eax
	mov dx, COM1 + UART_LSR
.wait:	in al, dx
	test al, UART_LSR_THRE
	jz .wait
	pop eax
	mov dx, COM1 + UART_THR
	out dx, al
	pop edx
	ret

puts:                                   ; ESI = NUL-terminated string
	push esi
.l:	lodsb
	test al, al
	jz .e
	call putc
	jmp .l
.e:	pop esi
	ret

puts_line:
	call puts
newline:
	mov al, 13
	call putc
	mov al, 10
	call putc
	ret

puts_bracketed:                         ; [string] then newline
	mov al, '['
	call putc
	call puts
	mov al, ']'
	call putc
	jmp newline

put_hex:                                ; EAX as 0x%08x
	push ecx
	push eax
	mov al, '0'
	call putc
	mov al, 'x'
	call putc
	pop eax
	mov ecx, 8
.d:	rol eax, 4
	push eax
	and al, 0x0f
	add al, '0'
	cmp al, '9'
	jbe .p
	add al, 'a' - '9' - 1
.p:	call putc
	pop eax
	loop .d
	pop ecx
	ret

; ------------------------------------------------------------ data
s_banner        db "hv: research hypervisor hvrun-testkernel", 0
s_bad_magic     db "PANIC: not booted by a multiboot2 loader", 0
s_cmdline       db "testkernel: cmdline ", 0
s_module        db "testkernel: module size=", 0
s_novmx         db "vmx: VT-x not available: CPUID.1:ECX.VMX is 0", 0
s_hasvmx        db "testkernel: CPUID.1:ECX.VMX is 1", 0
s_novtx_forced  db "vmx: VT-x not available: test=novtx", 0
s_test_pass     db "TEST hvrun_selftest PASS", 0
s_test_fail     db "TEST hvrun_selftest FAIL", 0
s_summary_pass  db "SUMMARY passed=1 failed=0", 0
s_summary_fail  db "SUMMARY passed=0 failed=1", 0
s_exit_ok       db "HVRUN-EXIT status=0 reason=done", 0
s_exit_fail     db "HVRUN-EXIT status=1 reason=testfail", 0
s_exit_novtx    db "HVRUN-EXIT status=3 reason=novtx", 0
s_panic         db "PANIC: test=panic asked for it", 0
s_shutdown      db "Shutdown", 0
s_keys_wait     db "testkernel: waiting for keys", 0
s_key           db "testkernel: key ", 0
w_keys          db "test=keys", 0
w_fail          db "test=fail", 0
w_panic         db "test=panic", 0
w_hang          db "test=hang", 0
w_reset         db "test=reset", 0
w_novtx         db "test=novtx", 0
w_exit_qemu     db "exit=qemu", 0
w_exit_bochs    db "exit=bochs", 0
align 8
null_idt        dw 0
                dd 0
load_end:

; ------------------------------------------------------------ bss
absolute load_end
alignb 4
boot_magic      resd 1
boot_info       resd 1
cmdline         resd 1
exit_status     resb 1
no_vtx          resb 1
alignb 16
                resb 4096
stack_top:
bss_end:
