# seed 003 §VI setting: 4 pCPUs, four 2-vCPU VMs; an LU-like program (1-3 ms
# compute, spin barrier) in the CON VM(s). Run by test/sim/cosched.py under every policy.
pcpus 4
seed 1
duration 60s
vm con0 vcpus=2 type=con
vm con1 vcpus=2 type=con
vm hit2 vcpus=2
vm hit3 vcpus=2
barrier b 2
barrier b1 2
program lu
  loop 2000
    compute 1ms..3ms
    barrier b spin
  end
end
thread con0.0-1 lu
program lu1
  loop 2000
    compute 1ms..3ms
    barrier b1 spin
  end
end
thread con1.0-1 lu1
thread hit2.0-1 intermittent 50
thread hit3.0-1 intermittent 50
