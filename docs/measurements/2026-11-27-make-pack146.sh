#!/usr/bin/env bash
# Stages nbody and the render and CUDA test executables of /work/main/build (configured with
# CMAKE_CUDA_ARCHITECTURES=90) into build-pack/pack.tar.xz for device run 146 and later
# (docs/measurements/device-runs/unpack-pk.sh unpacks it there).
set -euo pipefail
R=/work/main; B=$R/build; st=$R/build-pack/stage
rm -rf $st; mkdir -p $st/bin
cp $B/app/nbody $B/tests/nbody_cuda_tests $B/tests/nbody_render_tests $st/bin/
strip --strip-unneeded $st/bin/nbody*
cp -r $R/shaders $R/scenes $R/assets $st/bin/
bash /work/shared/device/bundle-libs.sh $st/lib $st/bin/nbody* > /dev/null
rm -f $st/lib/libmpi* $st/lib/libopen-rte* $st/lib/libopen-pal* $st/lib/libnccl* $st/lib/libpmix* $st/lib/libhwloc* $st/lib/libevent* $st/lib/libmunge* $st/lib/libfabric* $st/lib/libucp* $st/lib/libucs* $st/lib/libuct* $st/lib/libpsm* $st/lib/libibverbs* $st/lib/librdmacm* $st/lib/libefa*
ls $st/lib | tr '\n' ' '; echo
tar -C $st -cf - . | xz -T2 -6 > $R/build-pack/pack.tar.xz
ls -la $R/build-pack/*.tar.xz; du -sh $st
