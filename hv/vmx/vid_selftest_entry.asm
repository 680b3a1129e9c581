; VM entry and exit of the VID self-test's throw-away guest (hv/vmx/vid_selftest.c).
;
; int vid_selftest_launch(void)
;   Interrupts off, the test's VMCS current with every field but HOST_RSP and
;   HOST_RIP written. Records RSP and the exit label as the host state, then
;   VMLAUNCH (SDM §27). Returns 0 after the guest's first VM exit (the caller
;   reads the exit fields), -1 when VMLAUNCH itself failed (VMfailInvalid or
;   VMfailValid, §31.2; the caller reads VMCS_INSN_ERROR).
; The guest's GPRs are never saved: it is discarded after one exit. At the
; exit only RSP (and RIP) come from the VMCS; the callee-saved registers are
; restored from the stack here, the others are the guest's (caller-saved).
%define VMCS_HOST_RSP 0x6c14
%define VMCS_HOST_RIP 0x6c16

bits 64
section .text
global vid_selftest_launch

vid_selftest_launch:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	mov eax, VMCS_HOST_RSP
	vmwrite rax, rsp
	jbe .fail
	lea rdx, [rel .exit]
	mov eax, VMCS_HOST_RIP
	vmwrite rax, rdx
	jbe .fail
	vmlaunch
.fail:
	mov eax, -1
	jmp .out
.exit:
	xor eax, eax
.out:
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	ret
