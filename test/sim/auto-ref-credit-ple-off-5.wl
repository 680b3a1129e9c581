# The credit reference of auto-ple-off-5.wl (same workload, policy credit).
policy credit
pcpus 5
seed 3
ple 50us
vm par vcpus=4
vm uni vcpus=1
lock L
lock M
program worker
  loop 400
    compute 2ms..6ms
    lock L spin
    compute 300us
    unlock L
  end
end
program uw
  loop 400
    compute 2ms..4ms
    lock M spin
    compute 1ms
    unlock M
  end
end
thread par.0-3 worker
thread uni.0 uw
thread uni.0 uw
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
pin uni.0 4
expect vm['par'].done == 1 and vm['uni'].done == 1
