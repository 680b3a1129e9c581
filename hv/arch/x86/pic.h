/* Legacy 8259A PIC: remap and mask (the hypervisor does not use it). */
#ifndef HV_ARCH_X86_PIC_H
#define HV_ARCH_X86_PIC_H
void pic_disable(void);
#endif
