#!/usr/bin/env bash
# Device run 30: where the cuda Hermite engine starts to beat the cpu engine (16 cores here), for the
# auto backend's choice. Plummer spheres of N = 16 .. 8192 to t = 1 (eps 1/N), both orders, both
# engines; the wall time of each (the bench's first line after the run).
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
for n in 16 64 256 1024 2048 4096 8192; do
  for e in cpu cuda; do
    eps=$(awk "BEGIN{print 1/$n}")
    r4=$(timeout 60 $D/nbody_hermite_bench plummer $n 1 0.01 $eps $e ds 0 4 2>&1 | tail -1 | grep -o ": [0-9.]* s (start")
    r6=$(timeout 60 $D/nbody_hermite_bench plummer $n 1 0.1 $eps $e fp64 0 6 2>&1 | tail -1 | grep -o ": [0-9.]* s (start")
    echo "N $n $e: hermite4 $r4 | hermite6 $r6"
  done
done
echo "end at $((SECONDS-t0)) s"
