# The credit reference of auto-sa-1.wl: the receiver registered, SA off.
policy credit
pcpus 4
seed 2
vm par vcpus=4 irs=on sa=off
vm intf vcpus=1
barrier b 4
program bt
  loop 40
    compute 20ms..30ms
    barrier b block
  end
end
thread par.0-3 bt
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
thread intf.0 persistent
pin intf.0 0
expect vm['par'].done == 1
