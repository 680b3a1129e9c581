/* Module strings: what each boot module is and how its VM is configured,
 * e.g. `vm=0 role=kernel kind=multiboot vcpus=2 mem=64M pcpus=0,1 cmdline="x y"`.
 * Word splitting follows docs/running.md (GRUB's re-quoting). Pure C. */
#ifndef HV_VM_MODSTR_H
#define HV_VM_MODSTR_H
#include "compiler.h"
#include "vm_limits.h"   /* VM_MAX_VCPUS */

#define VM_CMDLINE_MAX 1024

enum vm_kind { VM_KIND_MULTIBOOT, VM_KIND_FLAT, VM_KIND_LINUX };
enum mod_role { MOD_ROLE_KERNEL, MOD_ROLE_INITRD };

struct vm_params {
	int vm;                      /* vm=<n> */
	enum mod_role role;
	enum vm_kind kind;
	unsigned vcpus;              /* vcpus=, default 1 */
	uint64_t mem;                /* mem=, default 64M */
	int pcpus[VM_MAX_VCPUS];     /* pcpus=a,b,...: placement of vCPU i; -1 = any */
	unsigned weight;             /* weight=, default 256 (credit) */
	unsigned cap;                /* cap= percent of one pCPU, 0 = none */
	bool apicv;                  /* apicv=on|off, default on where the CPU has it */
	bool apicv_set;
	bool kvm_pv;                 /* kvm=on: KVM paravirtual signature and MSRs */
	bool kvm_set;                /* kvm= given (else on for kind=linux) */
	bool ple;                    /* ple=on|off: PAUSE-loop exiting */
	bool ple_set;                /* ple= given (else on with more than one vCPU) */
	bool con;                    /* type=con|hit (co-scheduling class, seed 003) */
	bool sa;                     /* sa=on: scheduler-activation upcalls (seed 000) */
	bool vprof_dedicated;        /* vprof=dedicated: may request vProfile dedicated mode */
	bool priv;                   /* priv=on: may change other VMs' scheduling */
	char name[16];
	char cmdline[VM_CMDLINE_MAX];
};

/* Split off the next word (quotes/backslashes as docs/running.md says) into
 * out[outlen]; returns its length, 0 at the end, -E2BIG if it did not fit. */
int modstr_next_word(const char **cursor, char *out, size_t outlen);
/* Parse a whole module string; returns 0 or a negative errno after one
 * pr_err line naming the bad word. */
int modstr_parse(const char *s, struct vm_params *p);
#endif
