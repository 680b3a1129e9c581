# `cache_refill T` (docs/sched.md "Workload format"): a vCPU that starts on a
# pCPU where another vCPU ran since it last ran there computes T without
# progress. Two 300 ms jobs share one pCPU in 30 ms credit slices: every
# slice starts cold, so each job needs 3 ms more CPU per slice it gets
# (12 slices: 300 ms of work at 27 ms a slice): 336 ms of CPU each;
# without the directive each needs 300 ms.
pcpus 1
cache_refill 3ms
vm a vcpus=1
vm b vcpus=1
program job
  compute 300ms
end
thread a.0 job
thread b.0 job
expect 330 < vm['a'].cpu_ms < 340
expect 330 < vm['b'].cpu_ms < 340
expect run.idle_ms < 1
