#!/usr/bin/env bash
# Device run 18 (issue 17): the SASS of the every-pair kernel's default instance (U8 q1 B4, flags 7)
# and of the fastest measured (U32 q2 B4, flags 5), for an instruction count per interaction; the
# default every-pair rate at 256K and 1M on this GPU for reference.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for f in force_kernelILi8ELi1ELi4ELi7E force_kernelILi32ELi2ELi4ELi5E force_kernelILi16ELi1ELi4ELi7E; do
  cuobjdump -sass -fun "$(cuobjdump -sass $D/nbody 2>/dev/null | grep -o "_ZN[A-Za-z0-9_]*${f}[A-Za-z0-9_]*" | head -1)" $D/nbody > $OUT/logs/sass-$f.txt 2>&1
  echo "$f: $(wc -l < $OUT/logs/sass-$f.txt) lines"
done
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ " $OUT/logs/$name.log | head -6; }
b default-full --bodies 256K,1M --pairs full
b flags5 --bodies 256K,1M --pairs full --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 --kernel-flags 5 --split balanced
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
