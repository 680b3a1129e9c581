# Seed 001/000 basic setting: a 4-vCPU parallel VM (barrier every 5 ms,
# threads block at the barrier) and an interfering VM whose 2 vCPU(s) run
# persistent while(1) loops, on 4 pCPUs under credit.
pcpus 4
seed 1
vm par vcpus=4
vm intf vcpus=2
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b block
  end
end
thread par.0-3 worker
thread intf.0-1 persistent
# Two interfered vCPUs hurt at least as much as one (5 % tolerance).
expect vm['par'].completion_ms > 1.5 * ref('solo.wl').vm['par'].completion_ms
expect vm['par'].completion_ms >= 0.95 * ref('basic-1.wl').vm['par'].completion_ms
