# spin-4.wl with PAUSE-loop exits every 100 us of spinning. Credit's
# undirected yield (Xen semantics: the yielder goes behind a lower-priority
# vCPU, which then runs a whole slice) hands the pCPUs to the interfering
# loops: PLE alone makes the spinning VM worse, the baseline that directed
# yield / co-scheduling policies must beat.
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
expect vm['par'].yields > 100
expect vm['par'].share < 0.5 * ref('spin-4.wl').vm['par'].share
