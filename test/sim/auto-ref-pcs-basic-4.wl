# Reference for auto-*.wl: the same workload under pcs with the parallel VM
# declared CON at creation (the best fixed choice of co-scheduling there).
policy pcs
# Seed 001/000 basic setting: a 4-vCPU parallel VM (barrier every 5 ms,
# threads block at the barrier) and an interfering VM whose 4 vCPU(s) run
# persistent while(1) loops, on 4 pCPUs under credit.
pcpus 4
seed 1
vm par vcpus=4 type=con
vm intf vcpus=4
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b block
  end
end
thread par.0-3 worker
thread intf.0-3 persistent
# All four interfered: the machine is fully busy and split fairly between the
# two VMs (equal weights), and the slowdown is the largest of the three.
