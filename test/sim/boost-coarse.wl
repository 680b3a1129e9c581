# Coarse-grained counterpart of boost-fine.wl (barrier every 60 ms > slice):
# round-robin with the loop at slice ends gives about half of pCPU 0.
pcpus 4
vm par vcpus=4
vm hog vcpus=1
barrier b 4
program worker
  loop 20
    compute 60ms
    barrier b block
  end
end
thread par.0-3 worker
thread hog.0 persistent
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
pin hog.0 0
expect 0.4 < vcpu['par', 0].running_ms / run.end_ms < 0.6
expect vcpu['par', 0].runnable_ms > 0.8 * vcpu['par', 0].running_ms
