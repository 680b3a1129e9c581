# sched=auto on basic-4 (barrier with blocking: no PLE exits, no yields):
# nothing to co-schedule, auto keeps the VM HIT and runs as credit does.
policy auto
pcpus 4
seed 1
vm par vcpus=4
vm intf vcpus=4
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b block
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
expect run.policy == 'auto'
expect abs(vm['par'].completion_ms - ref('basic-4.wl').vm['par'].completion_ms) < 0.05 * ref('basic-4.wl').vm['par'].completion_ms
expect vm['par'].completion_ms < 1.05 * ref('auto-ref-pcs-basic-4.wl').vm['par'].completion_ms
