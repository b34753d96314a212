#!/usr/bin/env bash
# Device run 151 (nvidia-h100-x2): the cuda Hermite engine's large batches put in slot order on the host threads
# (BatchOrder, sim/src/hermite/batch_order.hpp) instead of one thread ("spatial order: batch sort", 0.14 s of the
# 128K run in run 119). The head before it (build-pack/before.tar.xz, run 150's build) and after, alternately, on one
# and two GPUs, with the profile; the blocks and dE/E must not change. Then the Hermite tests.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
mkdir -p .pkb && tar -xJf build-pack/before.tar.xz -C .pkb
B=$PWD/.pkb/bin
SHOW="in [0-9.]+ s:|energy error|dE/E|batch sort|^  (predict|correct|commit|select)"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072 --profile"
for k in a b; do
  step h128k-1-before-$k 60 $B/nbody $H
  step h128k-1-after-$k 60 $D/nbody $H
  step h128k-2-before-$k 60 $B/nbody $H --gpus 2
  step h128k-2-after-$k 60 $D/nbody $H --gpus 2
done
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure"
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='Hermite*:*SpatialOrder*:*TwoGpus*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
# Then, on the same warm machine, three more alternations without the profile (output appended to the run's file):
#   for k in c d e; do for w in before after; do for g in 1 2; do nbody run --integrator hermite4 --scene scenes/plummer.toml \
#     --t-end 0.25 --backend cuda --bodies 131072 --gpus $g; done; done; done
