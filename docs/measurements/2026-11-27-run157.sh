#!/usr/bin/env bash
# Device run 157 (one GPU): every CUDA and render test with the relative criterion as the tree's
# default, and the energy of the 1M galaxy run of run 156 summed exactly (fp64 direct sum on the GPU,
# `--energy exact`) to tell the integrator's drift from the tree potential's own error.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="median|PASSED|FAILED|Failure|relative energy|skipped|SKIPPED"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 420 $D/nbody_cuda_tests --gtest_color=no
step render-tests 240 $D/nbody_render_tests --gtest_color=no
R="run --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --backend cuda --gravity tree --steps 1000 --energy exact"
step energy-exact-angle 150 $D/nbody $R --theta 0.5 --alpha 0
step energy-exact-default 150 $D/nbody $R
R4="run --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --backend cuda --gravity tree --steps 4100"
step energy-4100-angle 150 $D/nbody $R4 --theta 0.5 --alpha 0
step energy-4100-default 150 $D/nbody $R4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
