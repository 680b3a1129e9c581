/* Constants shared by the guest library's assembly and C (guest-shim). */
#ifndef GUEST_ASM_H
#define GUEST_ASM_H

#define MB1_MAGIC        0x1BADB002     /* multiboot 0.6.96 header magic */
#define MB1_BOOT_MAGIC   0x2BADB002     /* EAX on entry */
#define MB1_F_PAGE_ALIGN 0x00000001
#define MB1_F_MEMINFO    0x00000002
#define MB1_F_AOUT       0x00010000     /* a.out kludge: load by header addresses */

#define SEL_CODE32       0x08
#define SEL_DATA         0x10
#define SEL_CODE64       0x18

#define GUEST_MAX_CPUS   8
#define BSP_STACK_SIZE   0x4000
#define AP_STACK_SIZE    0x2000

#define LAPIC_MMIO       0xFEE00000
#define LAPIC_REG_ID     0x20

/* 64-bit build: the kernel identity-maps 0-4 GiB with 2 MiB pages (3-4 GiB
 * uncached: MMIO) and one 2 MiB page at FAR_TEST_GPA for the far-EPT test. */
#define FAR_TEST_GPA     0x200000000    /* 8 GiB: beyond any guest RAM */
#define FAR_TEST_PDPT    8              /* PDPT slot covering FAR_TEST_GPA */

#define CR0_PE           0x00000001
#define CR0_PG           0x80000000
#define CR4_PAE          0x00000020
#define MSR_EFER         0xC0000080
#define EFER_LME         0x00000100
#endif
