#!/usr/bin/env bash
# Device run 72 (issue 17): the kernel lab's packed uniform-mass tiles (x, y, z: three LDS.128 per
# four bodies) with and without the ring of tiles, B = 4 and 8; the product's default every-pair
# config in the same call for reference.
source docs/measurements/device-runs/unpack.sh
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ " $OUT/logs/$name.log | head -6; }
b default-full --bodies 256K,1M --pairs full
VARIANTS=variants-pack.txt bash scripts/kernel-lab/run-on-device.sh
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass $OUT/logs
