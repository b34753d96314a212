#!/usr/bin/env bash
# Device run for issue 29 (branch hermitegpu): the Hermite engine's spatial order made on the GPU
# (keys, CUB sort, permutation; the host reads back 4 bytes a body) and the profile's old "spatial
# order, buffers" row split into "spatial order: N reorders", "spatial order: batch sort" and
# "buffers, GPU shares". On nvidia-h100-x2 (one GPU suffices for steps 1-2), in the repository root,
# with the sm_90 pack (nbody and nbody_cuda_tests) in build-pack/:
#   bash docs/measurements/2026-11-27-hermite-gpu-order.sh
# 1. the Hermite tests: the GPU's order equals the host's morton_order
#    (HermiteCuda.GpuMortonOrderIsTheHostsOfTheSamePositions), an applied order moves every
#    j-particle whole (HermiteCuda.ApplyingAnOrderMovesEveryJParticleWholeAndItsSlotMapFollows),
#    the engine's four reorders (HermiteCuda.SpatialOrderOfALargeBatchKeepsTheCallersOrder), and the
#    two-GPU ones (skipped with one GPU);
# 2. Hermite4 on 128K Plummer bodies to t = 0.25 with --profile on one GPU, then (3) on two.
# For the before/after comparison, main's nbody (3258c39) runs the same lines on the same machine.
# The limits add up to 135 s.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="blocks,|energy error|profile:|  [a-z]|GPU [0-9]|engine cuda|PASSED|FAILED|Failure|error"
nvidia-smi --query-gpu=name --format=csv,noheader
step tests 85 $D/nbody_cuda_tests --gtest_filter='Hermite*:TwoGpus.*:ForceShares.*'
S="--integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile"
step h128k-1gpu 25 $D/nbody run $S --bodies 131072
[ "$(nvidia-smi -L | wc -l)" -ge 2 ] && step h128k-2gpu 25 $D/nbody run $S --bodies 131072 --gpus 2
for r in h128k-1gpu h128k-2gpu; do [ -f $L/$r.log ] && { echo "=== $r"; sed -n '/^profile:/,$p' $L/$r.log; }; done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
