/* The hypervisor console: serial (COM1) and optionally port 0xE9. */
#ifndef HV_CONSOLE_H
#define HV_CONSOLE_H
#include "types.h"
void console_init(void);
void console_set_e9(bool on);
void console_write(const char *s, size_t n);  /* takes the console lock */
void console_write_unlocked(const char *s, size_t n); /* panic path */
bool console_panic_claim(void);                          /* panic path */
void console_lock(void);
void console_unlock(void);
#endif
