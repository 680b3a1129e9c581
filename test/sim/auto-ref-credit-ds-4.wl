# The credit reference of auto-ds-4.wl (same workload, policy credit).
policy credit
pcpus 4
seed 1
memory alpha=0.6 free=1
vm par vcpus=4
vm intf vcpus=4
barrier b 4
program worker
  loop 300
    compute 5ms mem
    barrier b spin-block=200us
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
pin intf.0 0
pin intf.1 1
pin intf.2 2
pin intf.3 3
expect vm['par'].done == 1
