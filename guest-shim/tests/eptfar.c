/* Far memory: touch guest-physical 8 GiB (FAR_TEST_GPA, mapped by entry.S),
 * beyond any guest RAM and above the 4 GiB hole. The documented behaviour is
 * that the hypervisor STOPS this VM: so the expected output ends with the
 * "eptfar: touching" line and no SUMMARY. Printing anything after it fails. */
#include "guest.h"

const char test_name[] = "eptfar";

void test_main(void)
{
	volatile uint32_t *far = (volatile uint32_t *)(uintptr_t)FAR_TEST_GPA;
	uint32_t v = 0;
	int f;

	con_printf("eptfar: touching 0x%llx; the hypervisor must stop this VM now\n",
		   (unsigned long long)FAR_TEST_GPA);
	f = read32_safe((uintptr_t)far, &v);
	*far = 0x12345678u;
	test_check("stopped", false, "still running: read 0x%08x (fault %d)", v, f);
}
