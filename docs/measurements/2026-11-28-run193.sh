#!/usr/bin/env bash
# Device run 193 (nvidia-h100-x4): a GPU thread that fails in Hermite's block steps stops the others
# (meetings before each spread gather) instead of hanging them; the tree walk's slot mapping written
# with one `ahead` (same slots); the viewer's 1M two-GPU row of issue 29 again after the costliest-first
# shares. Tests first, then Hermite 128K (one GPU, --gpus 4, mpirun -np 4), bench tree 16M, the viewer.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is|failing:|hung"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.*:HermiteTwoGpus*:HermiteMultiGpu*:ForceShares.*:TwoGpus.*:WalkRoom.*:GpuTree*:TreeGpu*'
SHOW="hermite4 \(|rror"
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
step h1 60 $D/nbody $H
for k in a b; do
  step h4-$k 60 $D/nbody $H --gpus 4
  step mpi4-$k 90 mpirun --allow-run-as-root --bind-to none -np 4 $D/nbody $H
done
SHOW="^ +[0-9]+ symm|GPU shares|rror"
A="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
step b16m-1 60 $D/nbody $A -n 16M
step b16m-4 60 $D/nbody $A -n 16M --gpus 4
SHOW="frames/s|fps|rror"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600"
for k in a b; do
  step v1-$k 90 $D/nbody $V
  step v2-$k 90 $D/nbody $V --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
