# latprobe as a closed-loop (ping-pong) client, `iowait T closed`: the next
# request comes T after the previous one was served, so with 500 us of work
# per request a 1 ms think time gives one request per 1.5 ms (an open-loop
# timer would give one per 1 ms), and a stall delays one request, not all
# the requests a timer would have issued meanwhile (tools/sim/repro_pv.py
# --closed, docs/sched.md "The two-VM case against Xen's credit1").
pcpus 1
seed 1
duration 3s
warmup 500ms
vm vm vcpus=1 guest=cfs
program ping
  loop forever
    iowait 1ms closed
    compute 500us
  end
end
thread vm.0 ping io
expect 660 < guest['vm'].io_per_s < 670
expect guest['vm'].io_p99_us < 100
