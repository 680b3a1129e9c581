/* Host shim observability for unit tests: count log lines, catch panics. */
#ifndef TEST_SHIM_H
#define TEST_SHIM_H
#include <setjmp.h>
extern int shim_log_count[4];       /* lines logged per level since reset */
extern char shim_last_log[1024];    /* text of the last line logged */
extern jmp_buf *shim_panic_jmp;     /* if set, panic() longjmps here */
extern char shim_panic_msg[1024];
void shim_reset_logs(void);
#endif
