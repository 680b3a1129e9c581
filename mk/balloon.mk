# xBalloon, the Linux guest half (issue 15; seed 004 §4-5; docs/sched.md "Balloon").
# Guest kernel: guest-shim/linux/patches/0050 (PV ABI common part) and 020x
# (/dev/xballoon, static and dynamic priority); program guest-shim/linux/src/balloon.c.
#   make test-linux-balloon  Bochs: a 1-vCPU VM capped at 50%, latprobe + hog,
#                            balloon=off vs balloon with dynamic priority; the
#                            balloon must sleep in NWC and beat vanilla's p99
#                            (two Linux boots, about 2-3 min: not in `make test`)
#   make exp-balloon         all five arms (io-only, vanilla, pv, balloon-s,
#                            balloon-d): p50/p99 wake-up latency, throughput
BALLOON_EXP := tools/linux/balloonexp.py
BALLOON_ARGS ?=

test-linux-balloon: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) $(BALLOON_EXP) --arms vanilla,balloon-d --check $(BALLOON_ARGS)

exp-balloon: linux-guest $(BUILD)/hv.elf
	@$(PYTHON) $(BALLOON_EXP) $(BALLOON_ARGS)

.PHONY: test-linux-balloon exp-balloon
