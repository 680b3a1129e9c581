# hv/lib: freestanding string and formatting routines.
UNIT_TESTS += test_fmt
test_fmt_SRCS := test/unit/test_fmt.c hv/lib/fmt.c
