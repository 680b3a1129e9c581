# sched=auto's DS without vProfile (hv/sched/auto_mech.c, issue 16): seed 001's
# memory-bound spinning VM beside CPU hogs (ds_persistent, shorter), run
# without a trace, so the scheduler gets PMU figures only for the few runs
# per accounting period that auto asks for (sched_vcpu_pmu_wanted; in the
# hypervisor the PMU glue reads the counters around those runs only). auto
# gives the memory-bound VM alone its DS slices from that sample and beats
# credit. Measured (hvsim, this file): credit 8400 ms, DS 10-30 ms for the
# whole host 7726 ms, auto 7635 ms.
policy auto
pcpus 4
seed 1
memory alpha=0.6 free=1
vm par vcpus=4
vm intf vcpus=4
barrier b 4
program worker
  loop 300
    compute 5ms mem
    barrier b spin-block=200us
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
pin intf.0 0
pin intf.1 1
pin intf.2 2
pin intf.3 3
expect vm['par'].done == 1
expect vm['par'].auto_ds == 1 and vm['intf'].auto_ds == 0
expect vm['par'].pmu_ms > 0
expect vm['par'].completion_ms < 0.95 * ref('auto-ref-credit-ds-4.wl').vm['par'].completion_ms
