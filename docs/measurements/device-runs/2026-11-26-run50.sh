#!/usr/bin/env bash
# Device run 50 (issue 18): the potential as r^2 (m / r^3) (an FFMA where the FADD of m / r was: the
# rsqrt's operand stays live until its result is used, so no instruction overwrites a MUFU's operand
# while the MUFU queue has not read it yet), alone (bin/P), with 3 (r.v) (3 / r^2) (bin/Q), and with a
# 12-warps-per-SM budget (bin/R: 168 registers, no spill at unroll 8; bin/T: both forms), against the
# committed kernel (bin/old): 256K all active, two rounds; 32K of 32K at the engine's block 128; the
# Hermite GPU tests on R; each build's SASS counted.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
k() { local name=$1; shift; timeout 60 "$@" > $OUT/logs/$name.log 2>&1; echo "$name $(grep -E '^kernel ds' $OUT/logs/$name.log | sed 's/.*j_split \([0-9]*\).*, \(.*\) interactions.*/s\1:\2/' | tr '\n' ' ')"; }
for round in 1 2; do
  for b in old P Q R T; do
    k $b-U8-r$round $D/$b/nbody_hermite_bench kernel 262144 262144 3 256 8 4
    k $b-U4-r$round $D/$b/nbody_hermite_bench kernel 262144 262144 3 256 4 4
  done
done
for b in old R T; do
  k $b-32k-128x4 $D/$b/nbody_hermite_bench kernel 32768 32768 10 128 4 4
  k $b-32k-128x8 $D/$b/nbody_hermite_bench kernel 32768 32768 10 128 8 4
  k $b-32k-256x8 $D/$b/nbody_hermite_bench kernel 32768 32768 10 256 8 4
done
timeout 200 $D/R/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*' > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests (R): exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
grep -E "max relative" $OUT/logs/cuda-tests.log | head -8
for b in old P Q R T; do
  cuobjdump -sass $D/$b/nbody_hermite_bench 2>/dev/null | awk '/Function : .*force_ds/{on=1} /Function : /&&!/force_ds/{on=0} on' | gzip > $OUT/logs/sass-$b.txt.gz
  echo "== $b"; python3 scripts/sass-mufu-operand-overwrites.py $OUT/logs/sass-$b.txt.gz | grep -E "^U(8|4)" 
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
