# The VID gate's boot self-test (hv/vmx/vid_selftest*.c, docs/vmx.md "The VID
# gate's self-test"): its verdict on the exit and the gate that follows.
UNIT_TESTS += test_vid_selftest
test_vid_selftest_SRCS := test/unit/test_vid_selftest.c hv/vmx/vid_selftest_calc.c
