#!/usr/bin/env bash
# Device run 73 (issue 17): the kernel lab's r^2 summed x first (LAB_S bit 1, the best order of runs
# 70-72) across configs, blocks of 256/512/1024 (64 registers: 2 and 4 blocks per SM), and the ring
# of 2-4 tiles for U16; the product's default every-pair config in the same call for reference.
source docs/measurements/device-runs/unpack.sh
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ " $OUT/logs/$name.log | head -6; }
b default-full --bodies 256K,1M --pairs full
VARIANTS=variants-final.txt bash scripts/kernel-lab/run-on-device.sh
tar czf $OUT/lab-sass.tgz -C $OUT/lab sass; rm -rf $OUT/lab/sass $OUT/logs
