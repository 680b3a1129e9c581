# Seed 001 §2.4: the 4-vCPU parallel VM against 4 vCPUs of intermittent
# interference (50) on 4 pCPUs.
pcpus 4
seed 7
vm par vcpus=4
vm intf vcpus=4
barrier b 4
program worker
  loop 200
    compute 5ms
    barrier b block
  end
end
thread par.0-3 worker
thread intf.0-3 intermittent 50
# The interference wants 50 % of each pCPU and gets about that; the parallel
# VM gets at least its fair half and completes.
expect vm['par'].done == 1
expect vm['intf'].share < 0.52
expect vm['par'].share > 0.45
