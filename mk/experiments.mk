# make experiments (issue 16): every seed paper's headlines, paper's number
# beside ours, into results/ (tools/experiments, docs/experiments.md).
#   make experiments              all seeds, hvsim at the papers' scale
#   make exp-001                  one seed paper (exp-KEY: one headline, e.g. exp-ds_persistent)
#   EXP_SEEDS=1-10 EXP_BOCHS=1    more repeats; also the Bochs (small-scale) runs
EXP_SEEDS ?= 1-5
EXP_OUT   ?= results
EXP_ARGS  ?=
EXP_FLAGS  = --seeds $(EXP_SEEDS) --out $(EXP_OUT) $(if $(EXP_BOCHS),--bochs) $(EXP_ARGS)
EXP_NEEDS  = $(BUILD)/sim/hvsim $(if $(EXP_BOCHS),all guest-images)

experiments: $(EXP_NEEDS)
	@$(PYTHON) tools/experiments $(EXP_FLAGS)

exp-%: $(EXP_NEEDS)
	@$(PYTHON) tools/experiments --select $* $(EXP_FLAGS)

# The fixed sample under docs/results/ (tables only; figures are not committed):
# hvsim at the papers' scale and the Bochs runs, repeat seeds 1-5 (about 3 min).
exp-sample: $(BUILD)/sim/hvsim all guest-images
	@$(PYTHON) tools/experiments --seeds 1-5 --bochs --out docs/results --no-figures
	@rm -rf docs/results/work

# Simulator vs Bochs for the scenarios that run in both (docs/experiments.md):
# 22 Bochs runs of the test guests (about 5 min on a loaded 2-core machine);
# the Linux-guest rows come from docs/results/sim-vs-bochs-linux.json
# (EXP_ARGS=--linux-bochs re-runs those five Linux boots and rewrites it; it
# needs `make linux-guest` first).
exp-simbochs: $(BUILD)/sim/hvsim all $(BUILD)/guest/bench/gang-64.elf \
		$(BUILD)/guest/bench/preempt-64.elf
	@$(PYTHON) tools/experiments --sim-vs-bochs --out $(EXP_OUT) $(EXP_ARGS)

# Short version in make test: quick scale twice, byte-identical tables.
test-exp: $(BUILD)/sim/hvsim
	@$(PYTHON) test/exp/test_experiments.py --hvsim $(BUILD)/sim/hvsim --tmp $(BUILD)/exp-test

TEST_TARGETS += test-exp
.PHONY: experiments exp-sample exp-simbochs test-exp
