# Hang watchdog (hv/vm/watchdog.c, docs/running.md "Watchdog") and its test:
# a provoked pCPU stall and a hung VM with hvrun's timeout dump (~30 s).
UNIT_TESTS += test_watchdog
test_watchdog_SRCS := test/unit/test_watchdog.c hv/vm/watchdog_calc.c

test-watchdog: guest-images all
	@$(PYTHON) test/watchdog/run_watchdog.py

TEST_TARGETS += test-watchdog
.PHONY: test-watchdog
