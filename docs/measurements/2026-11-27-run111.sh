#!/usr/bin/env bash
# Device run 111 (nvidia-h100-x2): the merged head (the balancing fixes, the Hermite split of
# hermiteids, the panel cache of uicache): the render tests that touch the GPU's drawing and the
# new panel cache, the two-GPU, Hermite and tree GPU tests, the viewer at 1M on one GPU and two,
# Hermite 128K on one and two, and the default collision with its panels (the Kernel panel's step
# value, clipped in run 106, not looked at on a GPU since its fix).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|gpus:|blocks,|energy error|screenshots:"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-tests 150 $D/nbody_render_tests --gtest_color=no --gtest_filter='UiCache.*:RenderScale.*:Sprite*:Splat*:CudaGlInterop.*:PublishedPositions.*:ViewerExecutable.*:FitToMachine.*'
step cuda-tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:ForceShares.*:Hermite*:GpuTree*:GpuBlockSteps*'
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-1gpu 60 $V --bodies 1048576 --frames 600
step view1m-2gpu 60 $V --bodies 1048576 --frames 600 --gpus 2
S="--integrator hermite4 --scene $D/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda"
step hermite-1gpu 40 $D/nbody run $S
step hermite-2gpu 40 $D/nbody run $S --gpus 2
step auto-ui 90 $D/nbody view --headless --backend cuda --bodies auto --frames 240 --size 1920x1080 --screenshot $OUT/auto-ui.png
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
