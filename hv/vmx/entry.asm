; VM entry and exit (SDM vol. 3 §27 "VM Entries", §28 "VM Exits").
;
; int vmx_enter(struct guest_regs *regs /* RDI */, int launched /* ESI */)
;   Called with interrupts off. Saves the host's callee-saved registers,
;   records RSP as HOST_RSP, loads the guest GPRs from *regs and executes
;   VMLAUNCH (launched == 0) or VMRESUME.
;   After every VM exit the guest GPRs are stored back in *regs and
;   vmx_vm_ops.exit(regs) (hv/vm/vcpu_exit.c vcpu_exit_handle, registered
;   const by hv/vm: hv/vmx names no hv/vm symbol) is called on the same stack,
;   interrupts still off. It returns VMX_EXIT_REENTER to go straight back
;   into the guest (VMRESUME, no host register reload, HOST_RSP unchanged),
;   or the enum exit_action that vmx_enter then returns (>= 0).
;   Returns VMX_ENTER_FAILED (-1) when VMLAUNCH/VMRESUME itself failed
;   (VMfailValid/VMfailInvalid; the caller reads VMCS_INSN_ERROR).
; Host state at VM exit: RIP = vmx_exit_entry, RSP = the value recorded here
; ([rsp] = regs), everything else from the VMCS host-state area
; (hv/vmx/vmcs_setup.c).
; struct guest_regs layout (hv/vmx/entry.h, checked by _Static_assert there):
%define GR_RAX 0
%define GR_RBX 8
%define GR_RCX 16
%define GR_RDX 24
%define GR_RSI 32
%define GR_RDI 40
%define GR_RBP 48
%define GR_R8  56
%define GR_R9  64
%define GR_R10 72
%define GR_R11 80
%define GR_R12 88
%define GR_R13 96
%define GR_R14 104
%define GR_R15 112
%define VMCS_HOST_RSP 0x6c14
%define VMX_ENTER_FAILED -1     ; hv/vmx/entry.h
%define VMX_EXIT_REENTER -2     ; hv/vmx/entry.h


; Load the guest GPRs from [rdi], RDI last. MOV leaves the flags alone.
%macro LOAD_GUEST_GPRS 0
	mov rax, [rdi + GR_RAX]
	mov rbx, [rdi + GR_RBX]
	mov rcx, [rdi + GR_RCX]
	mov rdx, [rdi + GR_RDX]
	mov rsi, [rdi + GR_RSI]
	mov rbp, [rdi + GR_RBP]
	mov r8,  [rdi + GR_R8]
	mov r9,  [rdi + GR_R9]
	mov r10, [rdi + GR_R10]
	mov r11, [rdi + GR_R11]
	mov r12, [rdi + GR_R12]
	mov r13, [rdi + GR_R13]
	mov r14, [rdi + GR_R14]
	mov r15, [rdi + GR_R15]
	mov rdi, [rdi + GR_RDI]
%endmacro

bits 64
; hv/vm's exit handler: the first member of the const struct vmx_vm_ops it
; registers in section hv_vmx_vm_ops (hv/vmx/exit.h; linker.ld defines
; vmx_vm_ops as the section's start).
extern vmx_vm_ops

section .text
global vmx_enter, vmx_exit_entry

vmx_enter:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	push rdi                        ; [rsp] = regs, found again at exit
	mov eax, VMCS_HOST_RSP
	vmwrite rax, rsp                ; 16-byte aligned: 8 + 7 pushes
	jbe .fail
	test esi, esi
	LOAD_GUEST_GPRS
	jnz .resume
	vmlaunch
	jmp .fail
.resume:
	vmresume
.fail:
	mov eax, VMX_ENTER_FAILED
.leave:
	pop rdi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	ret

vmx_exit_entry:
	push rdi                        ; guest RDI
	mov rdi, [rsp + 8]              ; regs
	mov [rdi + GR_RAX], rax
	mov [rdi + GR_RBX], rbx
	mov [rdi + GR_RCX], rcx
	mov [rdi + GR_RDX], rdx
	mov [rdi + GR_RSI], rsi
	mov [rdi + GR_RBP], rbp
	mov [rdi + GR_R8],  r8
	mov [rdi + GR_R9],  r9
	mov [rdi + GR_R10], r10
	mov [rdi + GR_R11], r11
	mov [rdi + GR_R12], r12
	mov [rdi + GR_R13], r13
	mov [rdi + GR_R14], r14
	mov [rdi + GR_R15], r15
	pop rax
	mov [rdi + GR_RDI], rax
	call [rel vmx_vm_ops]           ; vmx_vm_ops.exit; RSP is 16-byte aligned again here
	cmp eax, VMX_EXIT_REENTER
	jne vmx_enter.leave
	mov rdi, [rsp]
	LOAD_GUEST_GPRS
	vmresume
	mov eax, VMX_ENTER_FAILED       ; reached only when VMRESUME failed
	jmp vmx_enter.leave
