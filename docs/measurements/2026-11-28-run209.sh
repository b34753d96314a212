#!/usr/bin/env bash
# Device run 209 (nvidia-h200): the reduction by a warp per i-body for batches of many splits
# (-run209-reduce-by-warp.patch, on the measurement build of run 207): the Hermite CUDA tests, then
# 128K and 16K Plummer to t = 0.25 with the block laps (before: runs 206-207, the same kind), and
# ncu's kernel times of 400 launches mid-run at 128K (before: run 208).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|relative energy|rror|PASSED|FAILED|tests ran"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_filter='HermiteCuda.*:HermiteDeviceBlocks.*:HermiteTwoGpus.*'
export NBODY_MEASURE_LAPS=1
for n in 131072 16384; do for k in a b; do
  step h1-$n-$k 60 $D/nbody run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies $n
done; grep "block laps" $L/h1-$n-b.log; done
unset NBODY_MEASURE_LAPS
step ncu 240 /usr/local/cuda/bin/ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 6000 --launch-count 400 --csv $D/nbody run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072
grep -E '^"' $L/ncu.log > $OUT/ncu-128k.csv
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
