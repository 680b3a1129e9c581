# Seed 001/000 basic setting: a 4-vCPU parallel VM (barrier every 5 ms,
# threads spin at the barrier) and an interfering VM whose 4 vCPU(s) run
# persistent while(1) loops, on 4 pCPUs under credit.
pcpus 4
seed 1
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
# Spinning at barriers under interference: preempted siblings make the others
# spin away their slices; far slower than blocking barriers (basic-4.wl).
expect vm['par'].completion_ms > 3 * ref('basic-4.wl').vm['par'].completion_ms
expect vm['par'].spin_ms > 0.5 * vm['par'].cpu_ms
