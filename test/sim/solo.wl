# Baseline for the basic settings: the parallel VM alone on 4 pCPUs.
pcpus 4
vm par vcpus=4
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b block
  end
end
thread par.0-3 worker
# 200 x 5 ms of compute, nothing to wait for: ~1 s.
expect abs(vm['par'].completion_ms - 1000) < 5
expect run.idle_ms < 5
