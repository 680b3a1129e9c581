# Lock-holder preemption: 4 threads share one spinlock (1 ms critical
# section every 4 ms) against 4 persistent interfering vCPUs on 4 pCPUs.
pcpus 4
seed 3
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
# Spinlock under interference: lock-holder and lock-waiter preemptions happen
# and the program is much slower than with a blocking lock (lockblock-4.wl).
expect vm['par'].lhp + sum(vcpu['par', i].lwp for i in range(4)) > 10
expect vm['par'].completion_ms > 3 * ref('lockblock-4.wl').vm['par'].completion_ms
