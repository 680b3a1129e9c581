# Issue 16 run-time policy switch under load on 4 pCPUs: basic-4's parallel
# CON VM (barrier every 5 ms) beside 4 hogs, switched credit -> pcs -> credit
# -> rr -> credit while it runs. Every switch is installed within a kick
# latency, the parallel VM completes, the machine stays busy and split
# fairly, and no vCPU stops running.
pcpus 4
seed 1
vm par vcpus=4 type=con
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
switch 300ms pcs
switch 600ms credit
switch 900ms rr
switch 1200ms credit sched_ratelimit_us=500
expect len(switch) == 4 and all(w.rc == 0 and 0 <= w.installed_ms - w.at_ms < 1 for w in switch)
expect vm['par'].done == 1
expect abs(vm['par'].share - 0.5) < 0.08
expect run.idle_ms < 0.01 * 4 * run.end_ms
expect all(vcpu['par', i].running_ms > 0.3 * vm['par'].completion_ms / 2 for i in range(4))
expect all(vcpu['intf', i].running_ms > 0.3 * run.end_ms / 2 for i in range(4))
