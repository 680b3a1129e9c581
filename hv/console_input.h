/* Serial console input (issue 5: "a key on the serial input" dumps vProfile).
 * Only the BSP reads COM1, from the scheduler's poll (idle loop and the vCPU
 * run loop's slow path, never the fast re-entry path), at most once per
 * CKEY_PERIOD_NS. An idle BSP wakes for it; a busy one polls on its next
 * slow-path exit, at the latest the scheduler's tick (policies with a tick;
 * a tickless policy with one exit-free vCPU on the BSP would not poll).
 * `console_keys=off` on the command line: COM1 is never read. */
#ifndef HV_CONSOLE_INPUT_H
#define HV_CONSOLE_INPUT_H
#include "types.h"

/* Any pCPU may call it; it returns at once unless cpu is 0 and a poll is due. */
void console_input_poll(unsigned cpu, stime_t now);
/* When cpu must look again (an idle BSP bounds its halt by it); INT64_MAX
 * when cpu never reads input. */
stime_t console_input_deadline(unsigned cpu);
/* Key w (CKEY_STATE_DUMP) calls fn; hv/vm registers watchdog_dump at init. */
void console_input_set_state_dump(void (*fn)(const char *why, stime_t now));
#endif
