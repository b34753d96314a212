#pragma once
// `--sprites cuda` (issue 33): splat.comp's deposit as CUDA kernels (cuda_splat.cu) on a stream of
// this object's, in the process's CUDA context: beside the simulation's kernels on the SMs,
// where GL's compute passes, from a second context, were time-sliced against them (at 16M
// bodies on one H100 the steps/s halved). The sums land in ParticleSplatter's GL buffers, which
// splat_large.comp and splat_resolve.comp then read in GL as for `--sprites compute`.
// Only built with NBODY_HAVE_CUDA; no CUDA header here.

#if NBODY_HAVE_CUDA

#include <memory>
#include <vector>

#include "nbody/render/cuda_gl_interop.hpp"
#include "nbody/render/sprite_arithmetic.hpp"

namespace nbody::render {

class ParticleBuffers;
class ParticleSplatter;

class CudaSplatDeposit {
  public:
    // On the CUDA device current on the calling thread (the frame loop's).
    CudaSplatDeposit();
    ~CudaSplatDeposit();
    CudaSplatDeposit(const CudaSplatDeposit&) = delete;
    CudaSplatDeposit& operator=(const CudaSplatDeposit&) = delete;

    // Zeroes `splatter`'s sums and adds every particle's light into them (wide sprites listed for
    // splat_large.comp), for the frame `splatter.begin()` set up. The particles' buffers must be
    // registered (ParticleBuffers::enable_cuda_interop). Synchronisation, none of it on the CPU:
    //  - the kernels wait for CUDA's last write into the position buffers (an event: the copy
    //    of the newest published positions, or a step in the frame loop, on another stream);
    //  - one cudaGraphicsMapResources of all six buffers orders the GL work issued before it
    //    (the last frame's resolve reading the sums) before the kernels;
    //  - cudaGraphicsUnmapResources orders the kernels before the GL work issued after it (the
    //    wide sprites and the resolve). An event instead would need the CPU to wait for it before
    //    issuing the resolve (GL cannot wait for a CUDA event on the GPU without importing a
    //    semaphore), stalling the frame loop for the deposit; and the buffers must be mapped to
    //    get their device pointers anyway, so the unmap's ordering comes free.
    void deposit(const ParticleBuffers& particles, const ParticleSplatter& splatter,
                 const sprite::SpriteUniforms& uniforms);

    // The colour map GL samples (colour by speed or by mass), as GL holds it (half precision).
    void set_colour_table(const std::vector<sprite::F3>& table);

    // GPU time of each deposit (CUDA events around the kernels, collected without waiting).
    CudaStreamTimer& timer() { return timer_; }
    void* stream() const { return stream_; }

  private:
    // (Re)registers the splatter's three buffers when their GL names change (a resize).
    void register_splatter(const ParticleSplatter& splatter);

    void* stream_ = nullptr;  // a cudaStream_t, non-blocking, of the highest priority
    CudaGlRegistration light_, saturated_, large_;
    unsigned light_id_ = 0, saturated_id_ = 0, large_id_ = 0;
    sprite::F3* colour_table_ = nullptr;  // device memory, sprite::kColourTable texels
    CudaStreamTimer timer_;
    long long frames_ = 0;
};

}  // namespace nbody::render

#endif  // NBODY_HAVE_CUDA
