# sched=auto, first version (hv/sched/auto.c): ple-4's barrier spinners with
# PAUSE-loop exits beside 4 hogs. auto sees the parallel VM's PLE/yield rate,
# turns it CON (pcs co-scheduling) within the first accounting periods, and
# ends within 10 % of pcs with the VM declared CON from the start, far ahead
# of credit (ple-4.wl); the hogs keep their fair share.
policy auto
pcpus 4
seed 1
duration 10s
ple 100us
vm par vcpus=4
vm intf vcpus=4
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b spin
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
expect run.policy == 'auto'
expect vm['par'].completion_ms < 0.9 * ref('ple-4.wl').vm['par'].completion_ms
expect vm['par'].completion_ms < 1.1 * ref('auto-ref-pcs-ple-4.wl').vm['par'].completion_ms
expect abs(vm['par'].share - 0.5) < 0.08
expect vm['par'].auto_ple_off == 0
