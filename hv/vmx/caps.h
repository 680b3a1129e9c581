/* VMX capabilities read from the IA32_VMX_* MSRs (SDM vol. 3 App. A). */
#ifndef HV_VMX_CAPS_H
#define HV_VMX_CAPS_H
#include "types.h"

/* Control bits (SDM vol. 3 §25.6). */
#define PIN_EXTINT_EXIT         BIT(0)
#define PIN_NMI_EXIT            BIT(3)
#define PIN_VIRTUAL_NMI         BIT(5)
#define PIN_PREEMPT_TIMER       BIT(6)
#define PIN_POSTED_INTR         BIT(7)

#define PROC_INTR_WINDOW        BIT(2)
#define PROC_TSC_OFFSET         BIT(3)
#define PROC_HLT_EXIT           BIT(7)
#define PROC_INVLPG_EXIT        BIT(9)
#define PROC_MWAIT_EXIT         BIT(10)
#define PROC_RDPMC_EXIT         BIT(11)
#define PROC_RDTSC_EXIT         BIT(12)
#define PROC_CR3_LOAD_EXIT      BIT(15)
#define PROC_CR3_STORE_EXIT     BIT(16)
#define PROC_CR8_LOAD_EXIT      BIT(19)
#define PROC_CR8_STORE_EXIT     BIT(20)
#define PROC_TPR_SHADOW         BIT(21)
#define PROC_NMI_WINDOW         BIT(22)
#define PROC_MOV_DR_EXIT        BIT(23)
#define PROC_UNCOND_IO_EXIT     BIT(24)
#define PROC_IO_BITMAPS         BIT(25)
#define PROC_MTF                BIT(27)
#define PROC_MSR_BITMAPS        BIT(28)
#define PROC_MONITOR_EXIT       BIT(29)
#define PROC_PAUSE_EXIT         BIT(30)
#define PROC_SECONDARY          BIT(31)

#define PROC2_VIRT_APIC_ACCESS  BIT(0)
#define PROC2_EPT               BIT(1)
#define PROC2_DESC_TABLE_EXIT   BIT(2)
#define PROC2_RDTSCP            BIT(3)
#define PROC2_VIRT_X2APIC       BIT(4)
#define PROC2_VPID              BIT(5)
#define PROC2_WBINVD_EXIT       BIT(6)
#define PROC2_UNRESTRICTED      BIT(7)
#define PROC2_APIC_REG_VIRT     BIT(8)
#define PROC2_VIRT_INTR_DELIV   BIT(9)
#define PROC2_PLE               BIT(10)
#define PROC2_RDRAND_EXIT       BIT(11)
#define PROC2_INVPCID           BIT(12)
#define PROC2_VMFUNC            BIT(13)
#define PROC2_VMCS_SHADOW       BIT(14)
#define PROC2_RDSEED_EXIT       BIT(16)
#define PROC2_EPT_VE            BIT(18)
#define PROC2_XSAVES            BIT(20)
#define PROC2_TSC_SCALING       BIT(25)

#define EXIT_SAVE_DBG           BIT(2)
#define EXIT_HOST_ADDR64        BIT(9)
#define EXIT_LOAD_PERF_GLOBAL   BIT(12)
#define EXIT_ACK_INTR           BIT(15)
#define EXIT_SAVE_PAT           BIT(18)
#define EXIT_LOAD_PAT           BIT(19)
#define EXIT_SAVE_EFER          BIT(20)
#define EXIT_LOAD_EFER          BIT(21)
#define EXIT_SAVE_PREEMPT       BIT(22)

#define ENTRY_LOAD_DBG          BIT(2)
#define ENTRY_IA32E_GUEST       BIT(9)
#define ENTRY_LOAD_PERF_GLOBAL  BIT(13)
#define ENTRY_LOAD_PAT          BIT(14)
#define ENTRY_LOAD_EFER         BIT(15)

/* IA32_VMX_EPT_VPID_CAP bits (App. A.10). */
#define EPTCAP_EXEC_ONLY        BIT(0)
#define EPTCAP_PWL4             BIT(6)
#define EPTCAP_WB               BIT(14)
#define EPTCAP_2M               BIT(16)
#define EPTCAP_1G               BIT(17)
#define EPTCAP_INVEPT           BIT(20)
#define EPTCAP_AD               BIT(21)
#define EPTCAP_INVEPT_SINGLE    BIT(25)
#define EPTCAP_INVEPT_ALL       BIT(26)
#define VPIDCAP_INVVPID         BIT(32)
#define VPIDCAP_INVVPID_ADDR    BIT(40)
#define VPIDCAP_INVVPID_SINGLE  BIT(41)
#define VPIDCAP_INVVPID_ALL     BIT(42)

/* One control MSR: bits that must be 1 and bits that may be 1 (App. A.3). */
struct vmx_ctl { uint32_t must1, may1; };

struct vmx_caps {
	uint64_t basic, misc, ept_vpid;
	uint32_t revision;
	bool true_ctls;
	struct vmx_ctl pin, proc, proc2, exit, entry;
	uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	unsigned preempt_timer_shift;   /* timer counts at TSC >> shift */
};

extern struct vmx_caps vmx_caps;

/* (wanted | must-be-one) & may-be-one: the one line NOVA computes every control with. */
static inline uint32_t vmx_ctl_adjust(const struct vmx_ctl *c, uint32_t wanted)
{
	return (wanted | c->must1) & c->may1;
}
static inline bool vmx_ctl_has(const struct vmx_ctl *c, uint32_t bits)
{
	return (c->may1 & bits) == bits;
}

/* Returns 0, or -ENODEV with a reason ("why") for the one-line refusal. */
int vmx_detect(const char **why);
void vmx_caps_read(void);
void vmx_caps_print(void);
int vmx_cpu_on(void);     /* VMXON on this CPU; logs "vmx: cpu<N> VMXON ok" */
void vmx_cpu_off(void);
#endif
