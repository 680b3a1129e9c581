# One memory-bound thread alone is not slowed (free=1), and a memory-bound
# thread beside CPU-bound ones is not either: only memory-bound bursts count.
pcpus 4
seed 1
memory alpha=0.5 free=1
vm par vcpus=4
program memw
  loop 100
    compute 10ms mem
  end
end
program cpuw
  loop 100
    compute 10ms
  end
end
thread par.0 memw
thread par.1-3 cpuw
expect abs(vm['par'].completion_ms - 1000) < 5
