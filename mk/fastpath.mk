# Exit fast path (docs/vmx.md "Exit costs"): the per-VM CPUID answer cache.
UNIT_TESTS += test_cpuid_cache
test_cpuid_cache_SRCS := test/unit/test_cpuid_cache.c hv/vmx/cpuid_cache.c hv/vmx/cpuid_filter.c
