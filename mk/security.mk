# Guest-facing hardening (issue 10, docs/security.md): the hypercall console
# rate limit and the pure checks behind guest-written state.
UNIT_TESTS += test_ratelimit test_pat test_seg_check
test_ratelimit_SRCS := test/unit/test_ratelimit.c hv/lib/ratelimit.c
test_pat_SRCS := test/unit/test_pat.c
test_seg_check_SRCS := test/unit/test_seg_check.c
