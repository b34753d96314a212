#!/usr/bin/env bash
# Device run 84 (issue 34): why `nbody_render_tests` printed nothing for 300 s on an H100. Each
# render test runs alone with its own timeout, so a test that waits without bound is named, and
# its output kept. The build is main at 55ab8eb (sm_90), packed as build-pack/pack.tar.xz.
set -u
t0=$SECONDS
mkdir -p .pk && tar -xJf build-pack/pack.tar.xz -C .pk
D=$PWD/.pk/bin
export LD_LIBRARY_PATH=$PWD/.pk/lib:$D
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p $OUT/logs
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
echo "DISPLAY='${DISPLAY:-}' WAYLAND_DISPLAY='${WAYLAND_DISPLAY:-}' XDG_RUNTIME_DIR='${XDG_RUNTIME_DIR:-}'"
# As the issue ran it: the whole executable through a pipe, 120 s.
timeout -s KILL 120 $D/nbody_render_tests --gtest_color=no > $OUT/logs/render-whole.log 2>&1
echo "whole executable: exit $? after $((SECONDS-t0)) s, $(wc -l < $OUT/logs/render-whole.log) lines"; tail -3 $OUT/logs/render-whole.log
timeout 60 $D/nbody_render_tests --gtest_list_tests > $OUT/logs/list.txt 2>&1; echo "list: exit $?"
suite=""; n=0
while IFS= read -r line; do
  case "$line" in
    " "*) read -r t _ <<< "$line"; name="$suite$t"; s=$SECONDS
          timeout -s KILL 45 $D/nbody_render_tests --gtest_color=no --gtest_filter="$name" > $OUT/logs/t.log 2>&1; rc=$?
          r=$(grep -E "^\[  (PASSED|FAILED|SKIPPED) " $OUT/logs/t.log | head -1 | cut -c1-60)
          [ $rc -ne 0 ] || [ $((SECONDS-s)) -gt 10 ] && { echo "$name rc=$rc $((SECONDS-s))s $r"; cp $OUT/logs/t.log "$OUT/logs/rc$rc-$name.log"; }
          n=$((n+1)) ;;
    *) suite=$line ;;
  esac
  [ $((SECONDS-t0)) -gt 480 ] && { echo "stopping at 480 s after $n tests"; break; }
done < <(grep -v "^Running\|^  *#" $OUT/logs/list.txt | sed 's/  *#.*//')
echo "$n tests run one by one; end at $((SECONDS-t0)) s"
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
