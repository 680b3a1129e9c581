# Memory-contention model (docs/sched.md): 4 memory-bound threads alone on 4
# pCPUs with `memory alpha=0.5 free=1` run at 1 / (1 + 0.5 * 3) of full speed
# while all four compute together: 2.5x the CPU-bound time.
pcpus 4
seed 1
memory alpha=0.5 free=1
vm par vcpus=4
program worker
  loop 100
    compute 10ms mem
  end
end
thread par.0-3 worker
expect abs(vm['par'].completion_ms - 2500) < 5
