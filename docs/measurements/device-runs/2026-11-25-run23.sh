#!/usr/bin/env bash
# Device run 23 (issue 18): where two i-bodies per thread start to pay in the ds Hermite kernel: the
# kernel rate at block 128 / 256, unroll 4 / 8, one and two bodies per thread, auto j-split, for
# active counts from 1K to 256K.
source docs/measurements/device-runs/unpack.sh
for nn in "32768 1024" "32768 4096" "32768 32768" "262144 8192" "262144 32768" "262144 65536" "262144 262144"; do
  set -- $nn
  timeout 100 $D/nbody_hermite_bench kernel $1 $2 5 > $OUT/logs/k-$1-$2.log 2>&1
  echo "--- N $1 active $2: exit $? (t = $((SECONDS-t0)) s)"
  grep -E "^kernel ds .*\(auto\)" $OUT/logs/k-$1-$2.log | grep -E "block (128|256) unroll (4|8) " | sed -E 's/kernel ds N [0-9]+ active [0-9]+ //'
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
