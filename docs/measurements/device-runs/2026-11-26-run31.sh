#!/usr/bin/env bash
# Device run 31 (issue 18): the final build on the GPU: CUDA tests, the Hermite CLI and app tests, and
# what a user sees: the Kroupa cluster (4,096 stars) in the headless viewer, 1280x720 with the
# panels, on hermite4 (ds) and on hermite6 (the fp64 snap kernel), frames per second and the
# energy error of each.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
timeout 120 $D/nbody_cli_tests --gtest_color=no --gtest_brief=1 --gtest_filter='Hermite*:Integrator*' > $OUT/logs/cli-tests.log 2>&1
echo "cli tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cli-tests.log | head -8
timeout 60 $D/nbody_app_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/app-tests.log 2>&1
echo "app tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/app-tests.log | head -4
for i in hermite4 hermite6; do
  timeout 120 $D/nbody view --headless --scene scenes/star-cluster-kroupa.toml --integrator $i --frames 300 \
    --size 1280x720 --screenshot $OUT/kroupa-$i.png > $OUT/logs/view-$i.log 2>&1
  echo "--- view $i: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^fps_report|^  hermite|hermite_report" $OUT/logs/view-$i.log | cut -c1-400
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
