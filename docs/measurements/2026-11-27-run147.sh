#!/usr/bin/env bash
# Device run 147 (nvidia-h100-x1): with the particles kept between steps (run 146: 16M beside the loop at 60 frames/s,
# 112.0 ms a step against 98.3 in the loop, 88 %), the deposit runs once a step instead of 60 times a second, so what
# the walk leaves it (--walk-room block: one resident block per SM, the whole step long) may now cost more than it
# saves. Same call: the default (CUDA sprites, room block), the walk in slices instead, the deposit in GL (no room),
# and the loop's own step; the trails fix and the render tests.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="frames 2|frame times|GPU|step:|particles: drawn|PASSED|FAILED"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step in-loop 120 $D/nbody $V --frames 60
step cuda-block 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step cuda-slices4 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --walk-room slices:4
step cuda-slices8 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --walk-room slices:8
step gl-compute 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --sprites compute
step cuda-block-again 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600
step gl-compute-again 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --sprites compute
step render-tests 300 $D/nbody_render_tests --gtest_filter='ParticleCache.*:ViewerExecutable.*:Glow.*:CudaSprites*:Splat*:Trails*:RenderScale*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
