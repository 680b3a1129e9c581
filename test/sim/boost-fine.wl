# Seed 001 §3.2: a parallel program that blocks at fine grain (barrier every
# 5 ms, below the 30 ms slice) shares pCPU 0 with a persistent loop. BOOST
# lets its vCPU preempt the loop at every wake-up, so it gets far more than
# half of pCPU 0 (steal < compute), unlike the coarse-grained boost-coarse.wl.
pcpus 4
vm par vcpus=4
vm hog vcpus=1
barrier b 4
program worker
  loop 200
    compute 5ms
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
expect vcpu['par', 0].running_ms > 0.7 * run.end_ms
expect vcpu['par', 0].runnable_ms < 0.5 * vcpu['par', 0].running_ms
expect vm['hog'].cpu_ms < 0.3 * run.end_ms
