# vProfile (issue 5): recorder and serial encoder in hv/trace, host decoder
# tools/vprof, guest tool guest-shim/vprofctl, tests under test/vprof.
VPROF_SRCS := hv/trace/vprof.c hv/trace/acct.c hv/trace/profile.c hv/trace/dedicated.c \
              hv/trace/hcall.c hv/trace/ring.c hv/trace/codec.c hv/trace/frame.c hv/trace/dump.c
HV_SRCS += $(VPROF_SRCS)

UNIT_TESTS += test_vprof test_vprof_dump test_vprof_ded
test_vprof_SRCS      := test/unit/test_vprof.c $(VPROF_SRCS) hv/lib/fmt.c
test_vprof_dump_SRCS := test/unit/test_vprof_dump.c $(VPROF_SRCS) hv/lib/fmt.c
test_vprof_ded_SRCS  := test/unit/test_vprof_ded.c $(VPROF_SRCS) hv/lib/fmt.c


