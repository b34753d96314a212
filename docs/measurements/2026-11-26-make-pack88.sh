#!/usr/bin/env bash
# Stages nbody and nbody_cuda_tests of /work/wt/device/build-sm90 for device run 88.
set -euo pipefail
B=/work/wt/device/build-sm90; st=/work/main/build-pack/stage
rm -rf $st; mkdir -p $st/bin
cp $B/app/nbody $B/tests/nbody_cuda_tests $st/bin/
strip --strip-unneeded $st/bin/nbody*
cp -r /work/wt/device/shaders /work/wt/device/scenes /work/wt/device/assets $st/bin/
bash /work/shared/device/bundle-libs.sh $st/lib $st/bin/nbody* > /dev/null
rm -f $st/lib/libmpi* $st/lib/libopen-rte* $st/lib/libopen-pal* $st/lib/libnccl* $st/lib/libpmix* $st/lib/libhwloc* $st/lib/libevent* $st/lib/libmunge* $st/lib/libfabric* $st/lib/libucp* $st/lib/libucs* $st/lib/libuct* $st/lib/libpsm* $st/lib/libibverbs* $st/lib/librdmacm* $st/lib/libefa*
ls $st/lib | tr '\n' ' '; echo
tar -C $st -cf - . | xz -T2 -6 > /work/main/build-pack/pack.tar.xz
ls -la /work/main/build-pack/*.tar.xz; du -sh $st
