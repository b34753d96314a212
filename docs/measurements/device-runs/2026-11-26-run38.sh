#!/usr/bin/env bash
# Device run 38 (issue 18): where the wall time of a block-step run goes on the GPU engine: the
# bench's TimedEngine splits it into the engine's compute() (uploads, kernels, copies, the wait), its
# set_j() and the integrator's own host work. 32K Plummer to t = 3 and 16K to t = 10 (hermite4, ds).
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
nproc; lscpu | grep -E "Model name|MHz" | head -3
p() { local name=$1; shift; timeout 150 "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/$name.log; }
p plummer32k-t3 $D/nbody_hermite_bench plummer 32768 3 0.01 3.0517578125e-05 cuda ds
p plummer16k $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
which nsys perf 2>/dev/null
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
