# The dynamic CPU balloon (seed 004 §4.5) with SA upcalls on (seed 000 Alg. 1):
# a 4-vCPU VM capped at 200%, latprobe + a hog per vCPU, pinned. The guest
# model registers the upcall vector for the balloon but never acks an SA
# upcall, so every SA hold lasts its 500 us limit, and some began mid-slice
# and outlast the slice. The pCPU timer used to be re-armed at that slice end,
# already past, forever (hv/sched/schedule.c sched_hold_end): time stopped at
# 89 ms. hvsim now fails a run stuck at one instant (engine.c SIM_SAME_T_MAX).
pcpus 4
duration 3s
warmup 1s
vm vm vcpus=4 cap=200 balloon=dynamic sa=on
program latprobe
  loop forever
    iowait 1ms
    compute 50us
  end
end
thread vm.0-3 latprobe io
thread vm.0-3 persistent
pin vm.0 0
pin vm.1 1
pin vm.2 2
pin vm.3 3
expect run.end_ms == 3000
expect guest['vm'].sa_timeout > 10
expect guest['vm'].sleeps > 1000
expect guest['vm'].io_per_s > 3900
