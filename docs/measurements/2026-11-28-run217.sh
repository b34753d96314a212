#!/usr/bin/env bash
# Device run 217 (nvidia-h200): the two reductions of the Hermite j-split sharing one loop
# (add_splits, hermite_kernels.cu): the Hermite CUDA tests, and 128K and 16K Plummer to t = 0.25,
# whose final energies must be run 214's and 209's to the last digit (the same additions in the
# same order).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="hermite4 \(|relative energy|rror|PASSED|FAILED"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_filter='HermiteCuda.*:HermiteDeviceBlocks.*:HermiteTwoGpus.*'
for n in 131072 16384; do
  step h1-$n 60 $D/nbody run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies $n
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
