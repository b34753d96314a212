#!/usr/bin/env bash
# Builds nbody here for a Hopper GPU machine (sm_90) and stages what must run there into
# build-device/ (git-ignored, small enough to carry): bin/ (nbody and the test executables,
# with shaders/ and scenes/ beside them) and lib/ (the shared libraries such a machine lacks:
# GLFW, GLEW, X11, glvnd), packed as build-device.tar.xz to carry. Nothing is built on the GPU
# machine; there, unpack it and run scripts/gpu-all.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=${BUILD_TREE:-$root/build-sm90}
stage=${STAGE_DIR:-$root/build-device}
bundle=${BUNDLE_LIBS:-$root/../shared/device/bundle-libs.sh}
# MPI and NCCL (docs/DISTRIBUTED.md) only with NBODY_DISTRIBUTED=1: the 2-GPU machines have their
# own OpenMPI 4.1.6 (libmpi.so.40) and NCCL (libnccl.so.2), linked there and never bundled (NCCL
# alone is 218 MB, beyond what the device tool carries); whether the one-GPU machines have them
# was not checked, so the default build does not depend on them.
distributed=${NBODY_DISTRIBUTED:-0}
comm_options=(-DNBODY_MPI=OFF -DNBODY_NCCL=OFF)
[ "$distributed" = 1 ] && comm_options=(-DNBODY_MPI=ON -DNBODY_NCCL=ON)
cmake -S "$root" -B "$tree" -DCMAKE_BUILD_TYPE=Release -DNBODY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  "${comm_options[@]}" >/dev/null
cmake --build "$tree" -j "${JOBS:-$(nproc)}"
rm -rf "$stage"
mkdir -p "$stage/bin"
cp "$tree/app/nbody" "$stage/bin/"
for t in "$tree"/tests/nbody_*_tests "$tree"/tests/nbody_precision_floor; do [ -x "$t" ] && cp "$t" "$stage/bin/"; done
cp -r "$root/shaders" "$root/scenes" "$stage/bin/"
strip --strip-unneeded "$stage"/bin/nbody* 2>/dev/null || true
"$bundle" "$stage/lib" "$stage"/bin/nbody* >/dev/null
rm -f "$stage"/lib/libnccl.so* "$stage"/lib/libmpi.so* "$stage"/lib/libopen-rte.so* "$stage"/lib/libopen-pal.so* \
  "$stage"/lib/libhwloc.so* "$stage"/lib/libevent*.so* "$stage"/lib/libpmix.so*
# The device tool carries at most 64 MiB; the executables hold every kernel image, so compress.
tar -C "$stage" -cf - . | xz -T"${JOBS:-$(nproc)}" -6 >"$root/build-device.tar.xz"
echo "build-device: packed $(du -sh "$root/build-device.tar.xz" | cut -f1) into build-device.tar.xz (carry it; unpack there with"
echo "  mkdir -p build-device && tar -xJf build-device.tar.xz -C build-device)"
echo "build-device: staged $(du -sh "$stage" | cut -f1) in $stage: $(ls "$stage/bin" | tr '\n' ' ')"
