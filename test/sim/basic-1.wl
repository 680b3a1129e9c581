# Seed 001/000 basic setting: a 4-vCPU parallel VM (barrier every 5 ms,
# threads block at the barrier) and an interfering VM whose 1 vCPU(s) run
# persistent while(1) loops, on 4 pCPUs under credit.
pcpus 4
seed 1
vm par vcpus=4
vm intf vcpus=1
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b block
  end
end
thread par.0-3 worker
thread intf.0 persistent
# Interference on one vCPU is amplified by synchronisation: the VM keeps all
# its CPU time (4 s) yet finishes > 1.5x later than alone, because siblings
# wait at barriers for the vCPU that shares a pCPU; the loop keeps its pCPU.
expect vm['par'].cpu_ms > 3999
expect vm['par'].completion_ms > 1.5 * ref('solo.wl').vm['par'].completion_ms
expect vm['intf'].cpu_ms > 0.95 * run.end_ms
