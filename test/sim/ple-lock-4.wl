# PLE with directed yield (hv/sched/ple.c; seeds 000 §2, 002 §4): lock-4.wl
# (spinlock, 4 vCPUs against 4 persistent hogs on 4 pCPUs) with PAUSE-loop
# exits after 50 us of spinning at the default window. Directed yield to a
# preempted (or lock-handed) sibling beats the undirected yield with the
# same adaptive window, which beats PLE off by far.
pcpus 4
seed 3
ple 50us
vm par vcpus=4
vm intf vcpus=4
lock L
program worker
  loop 300
    compute 3ms
    lock L spin
    compute 1ms
    unlock L
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
expect vm['par'].done == 1
expect vm['par'].completion_ms < 0.8 * ref('ple-lock-undirected-4.wl').vm['par'].completion_ms
expect ref('ple-lock-undirected-4.wl').vm['par'].completion_ms < 0.5 * ref('ple-lock-off-4.wl').vm['par'].completion_ms
expect sum(vcpu['par', i].yield_to for i in range(4)) > 50
expect abs(vm['par'].share - 0.5) < 0.05
