#!/usr/bin/env bash
# Device run for issue 29's Hermite target ("Hermite4, 128K-star Plummer, t = 0..0.25: two GPUs >= 1.6x
# one GPU; blocks and energy as one GPU's"), after the several-GPU engine moved to one Morton order
# with a range of slots per GPU (docs/HERMITE.md, "Several GPUs: one Morton order, a range of slots each";
# docs/DISTRIBUTED.md, "Hermite and libg6"). On nvidia-h100-x2, in the repository root, with the
# sm_90 pack (nbody and nbody_cuda_tests) in build-pack/:
#   bash docs/measurements/2026-11-27-hermite-two-gpus.sh
# 1. the Hermite tests (the two-GPU ones count each GPU's far tiles and self tests against one
#    GPU's) and the other multi-GPU tests (the page-locked buffers are now portable: every GPU's);
# 2. Hermite4 on 128K and 512K Plummer bodies to t = 0.25, one GPU then two, each with --profile.
# The one-GPU threshold sweep (the engine's compute() on 128K for blocks of 64-4,096 bodies) ran in run
# 108 in 6 s and is left out: per call one GPU against two 0.076/0.085 ms at 64 active bodies,
# 0.097/0.093 at 256, 0.302/0.208 at 1,024, 0.868/0.549 at 4,096 (`nbody_hermite_bench engine 131072 20
# ACTIVE`, with HERMITE_BENCH_GPUS=2 HERMITE_BENCH_SEVERAL_FROM=0 for two GPUs).
# A 512K run's energy before and after it is now summed on the GPU (hermite_energy_on_gpu): on the
# host, 2.7e11 pair terms on 16 threads, run 108's 512K runs sat silent past their 100 s limit before
# their first block. The limits add up to 295 s.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="blocks,|energy error|profile:|  [a-z]|GPU [0-9]|engine cuda|PASSED|FAILED|Failure|error"
nvidia-smi --query-gpu=name --format=csv,noheader
nproc
step tests 85 $D/nbody_cuda_tests --gtest_filter='Hermite*:TwoGpus.*:ForceShares.*'
grep -E "warp-tiles|on one GPU, .* on two" $L/tests.log | cut -c1-400
S="--integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --profile"
step h128k-1gpu 25 $D/nbody run $S --bodies 128K
step h128k-2gpu 25 $D/nbody run $S --bodies 128K --gpus 2
step h512k-1gpu 80 $D/nbody run $S --bodies 512K
step h512k-2gpu 80 $D/nbody run $S --bodies 512K --gpus 2
for r in h128k-1gpu h128k-2gpu h512k-1gpu h512k-2gpu; do echo "=== $r"; sed -n '/^profile:/,$p' $L/$r.log; done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
