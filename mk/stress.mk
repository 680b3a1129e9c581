# make stress (issue 17): the tests that have hung before, many times over,
# each run shifted in time; pass / fail / hang per run with the command that
# replays it, and a summary (tools/stress.py). Not part of make test.
#   make stress [STRESS_RUNS=50] [STRESS_SUITES=linux-hv,linux-steal,guest-multi] [STRESS_JOBS=2]
#               [STRESS_HV_CMDLINE=vnmi=off]
STRESS_RUNS   ?= 50
STRESS_SUITES ?= linux-hv,linux-steal,guest-multi
STRESS_JOBS   ?= $(shell nproc 2>/dev/null || echo 1)
stress: all linux-guest guest-images
	@$(PYTHON) tools/stress.py --runs $(STRESS_RUNS) --suites $(STRESS_SUITES) \
		--jobs $(STRESS_JOBS) --hv $(BUILD)/hv.elf --hv-cmdline "$(STRESS_HV_CMDLINE)"
.PHONY: stress
