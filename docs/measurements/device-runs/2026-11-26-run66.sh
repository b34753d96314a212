#!/usr/bin/env bash
# Device run 66 (issue 18): the 6th order's step floor (kStepFloorOfTheLowTimeScale). 16K Plummer,
# eps 1/N, the fp64 snap kernel: at the default eta 0.1 to t = 10 (runs 28-29: 193,571 blocks,
# |dE/E| 1.306e-13), and at eta 0.01 to t = 10, which stopped at t = 0.247 with an underflow before
# the floor (runs 63-64).
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 120 $D/nbody_hermite_bench plummer 16384 10 0.1 6.103515625e-05 cuda fp64 0 6 > $OUT/logs/plummer16k-h6-eta0.1.log 2>&1
echo "hermite6 eta 0.1: exit $? (t = $((SECONDS-t0)) s)"; tail -2 $OUT/logs/plummer16k-h6-eta0.1.log
timeout 440 $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda fp64 0 6 > $OUT/logs/plummer16k-h6-eta0.01.log 2>&1
echo "hermite6 eta 0.01: exit $? (t = $((SECONDS-t0)) s)"; grep "t = " $OUT/logs/plummer16k-h6-eta0.01.log | tail -12; tail -2 $OUT/logs/plummer16k-h6-eta0.01.log
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
