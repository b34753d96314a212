#!/usr/bin/env bash
# Device run 80 (issue 17): the kernel lab's LAB_T variants (scripts/kernel-lab/variants-big.txt):
# tiles of T p bodies, one barrier per T p j-bodies instead of per p, to see whether the barrier's
# share of the idle cycles (45 %, run 70) is a fixed drain per barrier. The T = 1 lines and the
# product's default every-pair config are timed in the same call.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ |check|error" $OUT/logs/$name.log | head -8; }
b default-full --bodies 256K,1M --pairs full
VARIANTS=variants-big.txt bash scripts/kernel-lab/run-on-device.sh
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
