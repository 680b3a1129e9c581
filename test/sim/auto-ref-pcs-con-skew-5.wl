# Reference for auto-skew-5.wl: the fixed CON choice (pcs, par type=con),
# what auto chose there before the sibling-skew signal.
policy pcs
pcpus 5
seed 3
ple 50us
vm par vcpus=4 type=con
vm uni vcpus=1
lock L
program worker
  loop 1000
    compute 400us..800us
    lock L spin
    compute 250us
    unlock L
  end
end
thread par.0-3 worker
thread uni.0 persistent
pin par.0 0
pin par.1 1
pin par.2 2
pin par.3 3
pin uni.0 4
