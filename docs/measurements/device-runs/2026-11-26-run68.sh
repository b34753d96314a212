#!/usr/bin/env bash
# Device run 68 (issue 18): this session's app changes on a GPU machine. The Hermite CLI tests
# (HermiteCli.KernelOptionsReachTheCudaEngine needs the cuda engine: --block/--unroll/
# --bodies-per-thread/--j-split reach it and the engine line shows the shape), the integrator CLI
# tests, and the viewer's Hermite tests under the NVIDIA EGL (double start, exact continuation).
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 $D/nbody_cli_tests --gtest_color=no --gtest_filter='Hermite*:Integrator*:Leapfrog*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|SKIPPED \]" $OUT/logs/cli-tests.log | head -12
grep -A3 "KernelOptionsReachTheCudaEngine" $OUT/logs/cli-tests.log | head -8
timeout 200 $D/nbody_render_tests --gtest_color=no --gtest_filter='HermiteViewer*:ViewerHermite*:ViewerOpen*' > $OUT/logs/render-tests.log 2>&1
echo "render tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|SKIPPED \]" $OUT/logs/render-tests.log | head -12
timeout 60 $D/nbody run --integrator hermite4 --scene scenes/plummer.toml -n 4096 --t-end 0.25 --backend cuda --block 256 --unroll 8 --j-split 4 > $OUT/logs/run-shape.log 2>&1
echo "run with a kernel shape: exit $?"; grep -E "engine|interactions|energy" $OUT/logs/run-shape.log | head -4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
