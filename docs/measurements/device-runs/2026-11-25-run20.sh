#!/usr/bin/env bash
# Device run 20 (issue 17): every-pair blocks of 768 and 896 threads, never swept (the sweeps took
# p 256/512/1024): 24 or 28 warps per SM with the product's 64-register code, against the default.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { local name=$1; shift; timeout 280 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ " $OUT/logs/$name.log | sort -k10 -g | tail -8; }
b default --bodies 256K,1M --pairs full
b p768-896 --bodies 256K,1M --pairs full --unroll 8,16,32 --block 768,896 --threads-per-body 1,2 --bodies-per-thread 2,4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
