#!/usr/bin/env bash
# Device run 67 (issue 18): run 66's second part to the end. 16K Plummer, eps 1/N, the 6th order at
# eta 0.01 (the energy target's eta) to t = 10 with the step floor; run 66 reached t = 8 in 438 s
# (|dE/E| 1.5e-13) before its time limit.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 585 $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda fp64 0 6 > $OUT/logs/plummer16k-h6-eta0.01.log 2>&1
echo "hermite6 eta 0.01: exit $? (t = $((SECONDS-t0)) s)"; grep "t = " $OUT/logs/plummer16k-h6-eta0.01.log | tail -11; tail -2 $OUT/logs/plummer16k-h6-eta0.01.log
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
