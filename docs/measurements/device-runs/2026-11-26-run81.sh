#!/usr/bin/env bash
# Device run 81 (issue 17): scripts/kernel-lab/const_probe.cu, the every-pair loop alone (one block
# of 1024 threads per SM, 4096 j-bodies 16 times, no barrier in the timed loop) with the j-bodies in
# shared memory (LDS.128, the product's way) against constant memory (ULDC.64 into uniform
# registers, differences as FADD R, UR: 19.1 register-file reads per interaction against 21.7).
set -u
t0=$SECONDS
tar -xJf .dev-pack/lab.tar.xz
mkdir -p $OUT/lab
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for exe in build-lab/const-u*; do
  case $exe in *.ptxas) continue;; esac
  timeout 60 $exe 2>&1 | tee -a $OUT/lab/times.txt
  cuobjdump -sass $exe > $OUT/lab/$(basename $exe).sass 2>&1
done
timeout 120 ncu --clock-control none -k regex:probe --launch-skip 1 --launch-count 4 --section WarpStateStats --section SchedulerStats \
  build-lab/const-u8-b4 > $OUT/lab/ncu-const-u8-b4.log 2>&1
echo "ncu exit $? (t = $((SECONDS-t0)) s)"
grep -E "probe|Issue Slots|No Eligible|Eligible Warps|Warp Cycles Per Issued" $OUT/lab/ncu-const-u8-b4.log | head -24
tar czf $OUT/lab-sass.tgz -C $OUT/lab $(cd $OUT/lab && ls *.sass); rm -f $OUT/lab/*.sass
echo "end at $((SECONDS-t0)) s"
