# xBalloon, the Linux guest half (issue 15; seed 004 §4-5; docs/sched.md "Balloon").
# Guest kernel: guest-shim/linux/patches/020x on the PV ABI receiver of 0101
# (/dev/xballoon, static and dynamic priority); program guest-shim/linux/src/balloon.c.
#   make test-linux-balloon  Bochs: a 1-vCPU VM capped at 50%, latprobe + hog,
#                            balloon=off vs balloon with dynamic priority: the
#                            balloon must sleep in NWC, its sleeps must end at
#                            the I/O task's timer, its p99 must beat vanilla's;
#                            without the hog (io-balloon) the mode must turn WC
#                            and the upcall must end the balloon's WC wait;
#                            then two VMs on one pCPU: a balloon with no sleep
#                            timeout beside a hog VM, both must finish
#                            (four Linux boots, 37 s on an idle host: in `make test`)
#   make exp-balloon         all six arms (io-only, io-balloon, vanilla, pv,
#                            balloon-s, balloon-d): p50/p99 wake-up latency, throughput
BALLOON_EXP := tools/linux/balloonexp.py
BALLOON_ARGS ?=

test-linux-balloon: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) $(BALLOON_EXP) --arms io-balloon,vanilla,balloon-d --check --sleepy \
		--keep $(BUILD)/balloonexp/test $(BALLOON_ARGS)

exp-balloon: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) $(BALLOON_EXP) --keep $(BUILD)/balloonexp/exp $(BALLOON_ARGS)

TEST_TARGETS += test-linux-balloon
.PHONY: test-linux-balloon exp-balloon
