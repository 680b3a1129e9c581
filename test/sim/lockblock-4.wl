# Blocking lock: 4 threads share one spinlock (1 ms critical
# section every 4 ms) against 4 persistent interfering vCPUs on 4 pCPUs.
pcpus 4
seed 3
vm par vcpus=4
vm intf vcpus=4
lock L
program worker
  loop 300
    compute 3ms
    lock L block
    compute 1ms
    unlock L
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
expect vm['par'].done == 1
expect vm['par'].spin_ms == 0
