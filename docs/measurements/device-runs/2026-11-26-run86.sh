#!/usr/bin/env bash
# Device run 86 (nvidia-h100-x2): what run 85 left: the Python tests with pytest carried whole, the
# viewer test whose slow step now grows with the cores, the headless tree viewer at 1M, which of
# the CUDA tests skip, and the NCCL and tree-potential tests by name.
source docs/measurements/device-runs/unpack-pk.sh
step() { local name=$1 limit=$2; shift 2; local s=$SECONDS
  timeout -s KILL $limit "$@" > $L/$name.log 2>&1; local rc=$?
  echo "--- $name: exit $rc in $((SECONDS-s)) s (t = $((SECONDS-t0)) s)"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|passed|failed|fps_report|ms per" $L/$name.log | cut -c1-200 | head -16; }
step python-tests 150 $PY -m pytest tests/python -q -p no:cacheprovider -k "not install" -rs
step viewer-beside 90 $D/nbody_render_tests --gtest_color=no --gtest_filter='ViewerBeside.*:SignalsViewer.*:ViewerOpenBadFiles.*'
step cuda-named 90 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='Nccl*:GpuTreePotential.*:G6*'
step cuda-skips 150 $D/nbody_cuda_tests --gtest_color=no
sed -n '/tests, listed below/,$p' $L/cuda-skips.log | head -8
step viewer-tree-1m 60 $D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 1048576 --gravity tree --steps-per-frame 1 --frames 200 --no-ui --size 1920x1080
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
