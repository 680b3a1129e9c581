# Serial console input (issue 5's vProfile dump key): the BSP polls COM1 at a
# bounded rate from the scheduler poll; keys and rate limiter are pure logic.
UNIT_TESTS += test_console_keys
test_console_keys_SRCS := test/unit/test_console_keys.c hv/console_keys.c
