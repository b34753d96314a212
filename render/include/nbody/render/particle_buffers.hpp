#pragma once
// The particles' vertex buffers: two position buffers (x, y, z, m as float4, the layout the
// kernels use) in ping-pong, and one static buffer of labels (galaxy and component).
//
// Each step reads the current buffer and writes the other, which then becomes current; the one
// left behind holds the positions of the previous step. The renderer uses both: the displacement
// between them over the time between them is the leapfrog drift velocity, so colouring by speed
// needs no velocity copy on any path (interop included).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nbody/render/cuda_gl_interop.hpp"
#include "nbody/render/gl_objects.hpp"
#include "nbody/sim/state.hpp"

namespace nbody::render {

// Packs a particle's galaxy (low 16 bits) and component (high 16 bits) into one vertex attribute.
std::uint32_t pack_label(std::uint16_t galaxy, Component component);

class ParticleBuffers {
  public:
    ParticleBuffers() = default;

    // (Re)allocates for state.size() particles and uploads the state. The previous buffer gets
    // x - v * dt, so the displacement-based speed is right from the first frame. Registration
    // with CUDA, if any, is dropped and must be redone (enable_cuda_interop).
    void load(const State& state, double dt);

    std::size_t size() const { return size_; }
    std::size_t position_bytes() const { return size_ * sizeof(Vec4f); }

    GLuint current() const { return positions_[current_].id(); }
    GLuint previous() const { return positions_[1 - current_].id(); }
    GLuint labels() const { return labels_.id(); }
    double current_time() const { return time_[current_]; }
    double previous_time() const { return time_[1 - current_]; }
    // Changes whenever what the buffers hold may have changed (a load, an upload, a swap, a
    // read-write mapping), and is never the same for two ParticleBuffers: the renderer keeps the
    // particles' light drawn from one generation until the next (particle_renderer.hpp).
    std::uint64_t generation() const { return generation_; }

    // Host path: writes `positions` (size() of them, at simulation time `time`) into the
    // non-current buffer and makes it current. Returns the bytes uploaded.
    std::size_t upload(const std::vector<Vec4f>& positions, double time);
    // After something else (a CUDA kernel) wrote the non-current buffer: make it current.
    void swap(double time);

    // Reads back the current positions (glGetNamedBufferSubData): tests and screenshots of
    // exact state, never the per-frame path.
    std::vector<Vec4f> read_current() const;

#if NBODY_HAVE_CUDA
    // Registers both position buffers with CUDA. Returns an empty string on success, else why
    // the driver refused (the caller then copies through the host instead).
    std::string enable_cuda_interop();
    void disable_cuda_interop();
    bool cuda_interop_enabled() const { return static_cast<bool>(registration_[0]); }

    // One step's mapping: the current buffer read-only (pointer 0), the other write-discard
    // (pointer 1), ordered with CUDA work in `stream` (the backend's). Destroy it (or call
    // unmap) before drawing, then swap().
    ScopedCudaMap map_for_step(void* stream = nullptr) const;
    // The current buffer alone, read-write (diagnostics, tests).
    ScopedCudaMap map_current(void* stream = nullptr) const;
    // Both buffers for all of one frame's steps, in one cudaGraphicsMapResources call:
    // pointer(i) is buffer i, current_index() the one holding the current positions. Each step
    // reads pointer(current_index()) and writes the other, then swap(). Read-write hints on
    // both, so they never change from frame to frame and no cudaGraphicsResourceSetMapFlags is
    // needed: mapping and unmapping synchronise CUDA with GL, and once per frame is enough.
    ScopedCudaMap map_both(void* stream = nullptr) const;
    // The simulation on its own thread (issue 33): copies the newest positions `published` holds
    // into the non-current buffer and makes it current, on published's copy stream, between the
    // GL work that read that buffer before and the GL work that draws it next (the mapping orders
    // both). Returns false, changing nothing, when nothing newer was published.
    bool show_published(PublishedPositions& published);
    // For a drawing that maps the buffers itself (the CUDA deposit): the registrations (empty
    // unless enable_cuda_interop succeeded), and an event recorded where CUDA's last write into a
    // position buffer ended (the mappings above record it as they unmap; null without interop).
    // Unmapping orders that work before later GL work, but the CUDA documentation promises
    // nothing about a later mapping on another stream: such a drawing waits for this event.
    const CudaGlRegistration& current_registration() const { return registration_[current_]; }
    const CudaGlRegistration& previous_registration() const { return registration_[1 - current_]; }
    const CudaGlRegistration& labels_registration() const { return labels_registration_; }
    const CudaEvent* cuda_written() const { return written_.get(); }
#endif
    int current_index() const { return current_; }

  private:
    void changed() const;

    GlBuffer positions_[2];
    GlBuffer labels_;
    int current_ = 0;
    std::size_t size_ = 0;
    double time_[2] = {0, 0};
    // mutable: a read-write mapping (a const call) hands out the current buffer to be written.
    mutable std::uint64_t generation_ = 0;
#if NBODY_HAVE_CUDA
    // Declared after the buffers: members are destroyed in reverse order, so CUDA releases
    // the registrations before GL deletes the buffers, as the CUDA documentation requires.
    CudaGlRegistration registration_[2];
    CudaGlRegistration labels_registration_;
    std::unique_ptr<CudaEvent> written_;  // made with the registrations (on the CUDA device)
#endif
};

}  // namespace nbody::render
