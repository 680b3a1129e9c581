/* Model-specific register numbers used by the hypervisor (SDM vol. 4). */
#ifndef HV_ARCH_X86_MSR_H
#define HV_ARCH_X86_MSR_H

#ifndef MSR_IA32_APIC_BASE   /* also defined by dev/vlapic.h */
#define MSR_IA32_APIC_BASE          0x1b
#endif
#define   APIC_BASE_BSP             BIT(8)
#define   APIC_BASE_EXTD            BIT(10)
#define   APIC_BASE_EN              BIT(11)
#define MSR_IA32_FEATURE_CONTROL    0x0000003a
#define   FEATURE_CONTROL_LOCK      BIT(0)
#define   FEATURE_CONTROL_VMX_SMX   BIT(1)
#define   FEATURE_CONTROL_VMX       BIT(2)
#ifndef MSR_IA32_TSC_DEADLINE
#define MSR_IA32_TSC_DEADLINE       0x6e0
#endif
#define MSR_IA32_PAT                0x00000277
#define MSR_IA32_SYSENTER_CS        0x00000174
#define MSR_IA32_SYSENTER_ESP       0x00000175
#define MSR_IA32_SYSENTER_EIP       0x00000176
#define MSR_IA32_DEBUGCTL           0x000001d9
#define MSR_IA32_PERF_GLOBAL_CTRL   0x0000038f

#define MSR_IA32_VMX_BASIC          0x00000480
#define MSR_IA32_VMX_PINBASED_CTLS  0x00000481
#define MSR_IA32_VMX_PROCBASED_CTLS 0x00000482
#define MSR_IA32_VMX_EXIT_CTLS      0x00000483
#define MSR_IA32_VMX_ENTRY_CTLS     0x00000484
#define MSR_IA32_VMX_MISC           0x00000485
#define MSR_IA32_VMX_CR0_FIXED0     0x00000486
#define MSR_IA32_VMX_CR0_FIXED1     0x00000487
#define MSR_IA32_VMX_CR4_FIXED0     0x00000488
#define MSR_IA32_VMX_CR4_FIXED1     0x00000489
#define MSR_IA32_VMX_PROCBASED_CTLS2 0x0000048b
#define MSR_IA32_VMX_EPT_VPID_CAP   0x0000048c
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS  0x0000048d
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x0000048e
#define MSR_IA32_VMX_TRUE_EXIT_CTLS      0x0000048f
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS     0x00000490

#define MSR_X2APIC_BASE             0x00000800

#define MSR_IA32_EFER               0xc0000080
#define   EFER_SCE                  BIT(0)
#define   EFER_LME                  BIT(8)
#define   EFER_LMA                  BIT(10)
#define   EFER_NXE                  BIT(11)
#define MSR_IA32_STAR               0xc0000081
#define MSR_IA32_LSTAR              0xc0000082
#define MSR_IA32_CSTAR              0xc0000083
#define MSR_IA32_FMASK              0xc0000084
#define MSR_IA32_FS_BASE            0xc0000100
#define MSR_IA32_GS_BASE            0xc0000101
#define MSR_IA32_KERNEL_GS_BASE     0xc0000102
#define MSR_IA32_TSC_AUX            0xc0000103
#endif
