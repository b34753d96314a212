#!/usr/bin/env bash
# Device run 74 (issue 17): the product with r^2 summed x first and the tile read by reference
# (the lab's fastest order, runs 70-73): nbody_cuda_tests, --check, the default every-pair config
# and flags 5 at 256K and 1M, and the SASS of the default every-pair instance (U8 q1 B4 flags 7).
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ |check|error" $OUT/logs/$name.log | head -8; }
b default-full --bodies 256K,1M --pairs full
b flags5 --bodies 256K,1M --pairs full --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 --kernel-flags 5 --split balanced
b default --bodies 256K,1M
b check-full --bodies 64K --pairs full --check
b scene-full --scene scenes/milky-way-andromeda.toml --bodies 256K --pairs full
timeout 400 $D/nbody_cuda_tests > $OUT/logs/cuda-tests.log 2>&1; echo "cuda tests exit $? (t = $((SECONDS-t0)) s)"; tail -3 $OUT/logs/cuda-tests.log; grep -E "FAILED" $OUT/logs/cuda-tests.log | head
f=force_kernelILi8ELi1ELi4ELi7E
cuobjdump -sass -fun "$(cuobjdump -sass $D/nbody 2>/dev/null | grep -o "_ZN[A-Za-z0-9_]*${f}[A-Za-z0-9_]*" | head -1)" $D/nbody > $OUT/logs/sass-$f.sass 2>&1
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
