#!/usr/bin/env bash
# Device run 120 (nvidia-h100-x2), a change not kept: Hermite's sort_batch without a pass over every slot (a bitmap of
# the slots taken, cleared as it is read) on top of run 119's build (build-pack/r119.tar.xz, the
# "before" here). The Hermite tests, then 128K Plummer to t = 0.25 on one GPU and two, alternately.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='Hermite*:TwoGpus.*'
mkdir -p .pk/before && tar -xJf build-pack/r119.tar.xz -C .pk/before
SHOW="in [0-9.]+ s:|energy error|spatial order|buffers"
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --profile --bodies 131072"
for k in a b; do
  step h128k-1-before-$k 40 .pk/before/bin/nbody $H
  step h128k-1-after-$k 40 $D/nbody $H
  step h128k-2-before-$k 40 .pk/before/bin/nbody $H --gpus 2
  step h128k-2-after-$k 40 $D/nbody $H --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
