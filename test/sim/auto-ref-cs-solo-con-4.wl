# Reference for auto-solo-con-4.wl: seed 003's solo-CON setting (a CON VM
# whose threads spin at a barrier without PAUSE, beside a HIT VM of hogs)
# under cs, the best fixed choice there (tools/experiments --auto).
policy cs
pcpus 4
seed 1
vm con1 vcpus=4 type=con
vm hit vcpus=4 type=hit
barrier b 4
program worker
  loop 200
    compute 4ms..6ms
    barrier b spin
  end
end
thread con1.0-3 worker
thread hit.0-3 persistent
