; romstub: a 64 KiB "BIOS" for QEMU (-bios) that enters a guest the way the
; hypervisor will: it loads the long-mode state that load_bzimage() left in
; struct guest_entry (patched into the parameter block below by bzload) and
; jumps to it. This checks the loader end to end without VT-x.
;
; Register contract at the jump: 64-bit mode, paging on with CR3 = P_CR3,
; the guest's GDT loaded, CS = P_CS, DS/ES/SS/FS/GS = P_DS, IF = 0,
; RSI = P_RSI, RSP = P_RSP, other general registers 0.
;
; A 4 KiB blob that bzload puts at the top of a 128 KiB BIOS image whose rest
; holds the guest ACPI/MP tables; QEMU maps the image at 0xE0000-0xFFFFF, so
; the stub sits at 0xFF000 and execution starts at the reset vector F000:FFF0
; (SDM Vol. 3A §9.1.4).

ROM_BASE        equ 0xF0000
MSR_EFER        equ 0xC0000080
EFER_LME        equ 1 << 8
CR0_PE          equ 1 << 0
CR0_PG          equ 1 << 31
CR4_PAE         equ 1 << 5
TMP_CS32        equ 0x08
TMP_DS32        equ 0x10

        bits 16
        org 0xF000               ; offsets within segment 0xF000

; Parameter block at the start of the stub (0xFF000), filled in by tools/linux/bzload.c.
params:
P_MAGIC:  dq 0x6275747320756862  ; "hbu stub" (checked by bzload)
P_CR3:    dq 0
P_RIP:    dq 0
P_RSI:    dq 0
P_RSP:    dq 0
P_GDTR:   dw 0                   ; limit, then base: an lgdt operand
          dq 0
P_CS:     dw 0
P_DS:     dw 0

        align 8
tmp_gdt:
        dq 0
        dq 0x00cf9a000000ffff    ; 0x08: flat 32-bit code
        dq 0x00cf92000000ffff    ; 0x10: flat data
tmp_gdtr:
        dw 3 * 8 - 1
        dd ROM_BASE + tmp_gdt

start16:
        cli
        cld
        in al, 0x92              ; fast A20 gate on (Bochs starts with it off)
        or al, 2
        and al, 0xFE             ; bit 0 would reset the machine
        out 0x92, al
        o32 lgdt [cs:tmp_gdtr]
        mov eax, cr0
        or eax, CR0_PE
        mov cr0, eax
        jmp dword TMP_CS32:(ROM_BASE + start32)

        bits 32
start32:
        mov ax, TMP_DS32
        mov ds, ax
        mov es, ax
        mov ss, ax
        mov esp, [ROM_BASE + P_RSP]   ; RAM: the ROM alias ignores pushes
        ; Long mode: PAE, CR3, EFER.LME, then paging (SDM Vol. 3A §9.8.5).
        mov eax, cr4
        or eax, CR4_PAE
        mov cr4, eax
        mov eax, [ROM_BASE + P_CR3]
        mov cr3, eax
        mov ecx, MSR_EFER
        rdmsr
        or eax, EFER_LME
        wrmsr
        mov eax, cr0
        or eax, CR0_PG
        mov cr0, eax
        ; Compatibility mode now; the guest's GDT has the 64-bit code segment.
        lgdt [ROM_BASE + P_GDTR]
        movzx eax, word [ROM_BASE + P_CS]
        push eax
        push dword ROM_BASE + start64
        retf

        bits 64
start64:
        mov ax, [abs ROM_BASE + P_DS]
        mov ds, ax
        mov es, ax
        mov ss, ax
        mov fs, ax
        mov gs, ax
        mov rsi, [abs ROM_BASE + P_RSI]
        mov rsp, [abs ROM_BASE + P_RSP]
        mov rax, [abs ROM_BASE + P_RIP]
        xor ebx, ebx
        xor ecx, ecx
        xor edx, edx
        xor edi, edi
        xor ebp, ebp
        jmp rax

        bits 16
        times 0xFF0 - ($ - $$) db 0xF4
reset:
        jmp 0xF000:start16
        times 0x1000 - ($ - $$) db 0xF4
