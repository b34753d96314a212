#!/usr/bin/env bash
# Device run 119 (nvidia-h100-x2): the branch `final` (main + gpuenergy + cudasplat + hermitegpu): the
# viewer's energy of cuda tree runs from the GPU tree; CUDA sprites with the walk leaving room
# (--walk-room none|block|slices:N), the viewer beside the frame loop at 16M and 1M on one GPU; the
# Hermite engine's spatial order made on the GPU, 128K on one GPU and two, before (main at efb82d9,
# build-pack/before.tar.xz) and after; NCCL's transport between two mpirun ranks (NCCL_DEBUG=INFO).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|bitwise"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='WalkRoom*:GpuTree*:ForceShares*:GpuTreePotential*:Hermite*:TwoGpus.*'
step render-tests 300 $D/nbody_render_tests --gtest_color=no --gtest_filter='CudaSprites*:SpriteDrawing*:SplatLayers*:CudaGlInterop*:PublishedPositions*'
SHOW="frames 2|GPU:|sprites drawn|walk room|energy line|fps_report"
V="$D/nbody view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step b16m-compute 100 env NBODY_SIM_THREAD=1 $V --bodies 16777216 --frames 300 --sprites compute
for r in none block slices:8 slices:16; do
  step b16m-cuda-$r 100 env NBODY_SIM_THREAD=1 $V --bodies 16777216 --frames 300 --sprites cuda --walk-room $r
done
for r in none block; do
  step b1m-cuda-$r 60 env NBODY_SIM_THREAD=1 $V --bodies 1048576 --frames 600 --sprites cuda --walk-room $r
done
step auto-ui 60 $D/nbody view --headless --backend cuda --bodies auto --frames 400 --size 1920x1080 --screenshot $OUT/auto-ui.png
mkdir -p .pk/before && tar -xJf build-pack/before.tar.xz -C .pk/before
SHOW="blocks,|energy error|spatial order|buffers|engine cuda"
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --profile --bodies 131072"
for k in a b; do
  step h128k-1-before-$k 40 .pk/before/bin/nbody $H
  step h128k-1-after-$k 40 $D/nbody $H
  step h128k-2-before-$k 40 .pk/before/bin/nbody $H --gpus 2
  step h128k-2-after-$k 40 $D/nbody $H --gpus 2
done
SHOW="via|steps of dt"
RT="$D/nbody run --backend cuda --scene scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
step mpi-nccl-transport 60 env NCCL_DEBUG=INFO mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NCCL_DEBUG $RT
step gpus2-run 60 $RT --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
