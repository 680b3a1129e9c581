# The start state a boot leaves (tools/exp_lib/simbochs.py, docs/results/sim-vs-bochs.md):
# each VM's two vCPUs on one pCPU, the VMs starting 672.111 ms into hypervisor
# time, timers 78 us late. The lock-step program then advances one barrier
# per slice its pCPU gives it: ~40 slices of ~30 ms, counted from `start`
# (a fresh start spreads each VM over both pCPUs: ~770 ms).
pcpus 2
vm par vcpus=2
vm hog vcpus=2
barrier b 2
program worker
  loop 40
    compute 5155us
    barrier b spin
  end
end
thread par.0-1 worker
thread hog.0-1 persistent
timer_latency 78us
start 672.111ms
acct_offset 0ms
place par.0-1 0
place hog.0-1 1
expect vm['par'].completion_ms > 1150 and vm['par'].completion_ms < 1260
expect vcpu['par', 0].migrate == 0 and vcpu['par', 1].migrate == 0
expect abs(run.end_ms - vm['par'].completion_ms) < 0.01
