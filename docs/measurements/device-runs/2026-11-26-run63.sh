#!/usr/bin/env bash
# Device run 63 (issue 18): the energy target as the issue words it, eta = 0.01, with the 6th order
# (its default is eta 0.1): 16K Plummer, eps 1/N, to t = 10, the fp64 snap kernel.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 560 $D/nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda fp64 0 6 > $OUT/logs/plummer16k-h6-eta0.01.log 2>&1
echo "hermite6 eta 0.01: exit $? (t = $((SECONDS-t0)) s)"; tail -3 $OUT/logs/plummer16k-h6-eta0.01.log
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
