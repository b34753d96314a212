#!/usr/bin/env bash
# Device run 180 (nvidia-h100-x2): the viewer's Hermite run taking its block steps on the GPU
# (advance_blocks, as many blocks a call as its frame budget allows) against the host's, 131,072 stars
# beside the window, headless; the block-steps, Hermite viewer and interop tests.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|bodies to t|the same in"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step block-tests 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.*'
step render-hermite 200 $D/nbody_render_tests --gtest_color=no --gtest_filter='*Hermite*:CudaGlInterop.*:ViewerExecutable.*'
V="view --headless --backend cuda --scene $PWD/scenes/star-cluster-kroupa.toml --bodies 131072 --frames 900 --size 1280x720"
SHOW="frames/s|blocks|t = |energy"
for k in a b; do
  step view-host-$k 90 env NBODY_HERMITE_BLOCKS_ON=host $D/nbody $V --screenshot $OUT/view-host-$k.png
  step view-gpu-$k 90 $D/nbody $V --screenshot $OUT/view-gpu-$k.png
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
