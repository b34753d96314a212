#!/usr/bin/env bash
# Device run 108 (nvidia-h100-x2): main after 094ea90 (the shares' times gathered without the host
# waiting; the drawing GPU's GL time as other work the shares are cut around; a picked galaxy fitted
# on a GPU) against run 107's figures, with the one-GPU baseline again in this call: the two-GPU
# tests, the viewer at 1M and 16M (tree, 1080p, one step per frame, no panels), --gpus 2 against
# mpirun -np 2, and a galaxy dropped on the window after --bodies auto. Then the Hermite split of
# branch hermiteids (build-pack/hermite.tar.xz), by its own script.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|GPU:|host \(CPU|gpus:|steps of dt|nbody view:|a galaxy on this GPU|took .* ms on the GPU"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step two-gpu-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:ForceShares.*'
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-1gpu 60 $V --bodies 1048576 --frames 300
step view1m-2gpu 60 $V --bodies 1048576 --frames 300 --gpus 2 --screenshot $OUT/view1m-2gpu.png
step view1m-1gpu-b 60 $V --bodies 1048576 --frames 300
step view1m-2gpu-b 60 $V --bodies 1048576 --frames 300 --gpus 2
step view16m-2gpu 90 $V --bodies 16777216 --frames 60 --gpus 2
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
step tree4m-2gpu 120 $RT --gpus 2
step tree4m-mpi2 120 mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
S="--integrator hermite4 --scene $D/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda --profile"
step main-hermite-1gpu 60 $D/nbody run $S
step picked-galaxy 90 $D/nbody view --headless --backend cuda --bodies auto --drop $D/scenes/antennae.toml --frames 240 --size 1920x1080 --no-ui --screenshot $OUT/antennae-dropped.png
tar czf $OUT/logs-main.tgz -C $OUT logs; rm -rf $L
echo "main part ends at $((SECONDS-t0)) s"
# The branch's build in place of main's, then its own script (which unpacks build-pack/pack.tar.xz).
if [ -f build-pack/hermite.tar.xz ]; then
  rm -rf .pk && mv build-pack/hermite.tar.xz build-pack/pack.tar.xz
  bash docs/measurements/2026-11-27-hermite-two-gpus.sh
fi
