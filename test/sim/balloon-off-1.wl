# balloon-1.wl without the balloon (the rq_clock_task guest).
pcpus 1
seed 1
duration 3s
warmup 500ms
vm vm vcpus=1 cap=50 guest=cfs pv=on
program latprobe
  loop forever
    iowait 1ms
    compute 50us
  end
end
thread vm.0 latprobe io
thread vm.0 persistent
expect guest['vm'].sleeps == 0
