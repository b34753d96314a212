#pragma once
// Trails: a fading history of every body's positions, kept and drawn on the GPU.
//
// A ring of K position snapshots lives in one GL buffer (slot s holds all N bodies at one moment,
// bodies in buffer order). Points are spaced in model time, not frames (issue 33): where the
// simulation runs on the host (its thread, a Hermite run) it samples them itself after the steps
// that reach each sample time (sim's TrailSampler) and append() uploads them, so a close
// encounter stepped within one frame is a curve. On the CUDA paths the current position buffer
// is copied into the next slot with glCopyNamedBufferSubData once a frame's model time has
// passed the next sample time: GPU to GPU, no host copy (it only reads the GL buffer, after the
// frame's mapping has ended), but at most one point per frame.
//
// Cost: 16 bytes per body per trail point (float4 x, y, z, m, the particle buffer's layout, so a
// snapshot is one copy): K = 96 at N = 65,536 is 96 MiB of GPU memory, at N = 7,500 11 MiB.
// Each recorded point copies (or uploads) 16 N bytes. Drawing pulls 2 K N vertices (GL_LINES from
// the ring, no vertex buffer: the vertex shader reads the ring as a storage buffer). The ring is
// capped at kMaxTrailBytes; larger K * N get fewer points (capacity() says how many).
//
// Drawn into the renderer's float target with the particles' additive light (ParticleRenderer
// calls draw()), so the trails get the same exposure, glow and tone mapping. A segment's light
// falls linearly with its age, to zero at the oldest point; the newest segment joins the last
// snapshot to the body's current position, so a trail always ends at its body.

#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>

#include "nbody/render/gl_objects.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/shader.hpp"
#include "nbody/sim/trail_sampler.hpp"

namespace nbody::render {

struct RenderSettings;

// Plain parameters: the display panel and --trails edit them.
struct TrailSettings {
    bool enabled = false;
    int length = 96;          // points kept per body (K)
    double interval = 0.02;    // model time between points (the viewer: two frames of the scene's playback)
    float brightness = 0.25f;  // the trails' light: x 0.02 of a sprite's peak per pixel (trail_renderer.cpp)
};

inline constexpr int kMaxTrailLength = 4096;
inline constexpr std::size_t kMaxTrailBytes = std::size_t(512) << 20;  // 512 MiB

class TrailRenderer {
  public:
    TrailRenderer();  // loads trails.vert / trails.frag; throws ShaderError naming the file and line

    // Call once per frame after the frame's steps (and after any CUDA mapping has ended). Keeps
    // the ring in step with `particles` and `settings`: allocates it when trails are switched on
    // or N or the length changes (starting empty), frees it when they are switched off. With
    // `copy_buffer` (the CUDA paths) it copies the current positions in when the model time has
    // reached the next sample time. A simulation time that went backwards (reset) empties it.
    void update(const ParticleBuffers& particles, const TrailSettings& settings, bool copy_buffer);
    // Adds a point the simulation sampled (after update(); ignored when off or of another N).
    void append(const TrailPoint& point);
    // Forgets the history (a new scene or snapshot: the bodies jumped).
    void clear() {
        filled_ = 0;
        changed();
    }

    // Adds the trails' light into the bound framebuffer (additive blending set by the caller).
    // `intensity`: a sprite's peak light, as the particle pass uses it.
    void draw(const ParticleBuffers& particles, const glm::mat4& view_projection, const RenderSettings& settings,
              float intensity) const;

    bool active() const { return enabled_ && filled_ > 0; }
    // Changes whenever what draw() draws may have changed (a point added, the ring reset or
    // resized, switched on or off, another brightness); never the same for two TrailRenderers. The
    // particle renderer keeps the light of trails of one version (particle_renderer.hpp).
    std::uint64_t version() const { return version_; }
    int points() const { return filled_; }     // points held per body now
    int capacity() const { return capacity_; }  // points the ring holds (length, or less when capped)
    std::size_t bytes() const { return capacity_ > 0 ? std::size_t(capacity_) * bodies_ * 16 : 0; }

  private:
    GLintptr next_slot();  // the byte offset of the slot a new point goes to; counts it held
    void changed();        // a new version()
    ShaderProgram program_;
    GlVertexArray vao_;  // core profiles draw nothing without one, even with no attributes
    GlBuffer ring_;
    std::size_t bodies_ = 0;
    int capacity_ = 0, filled_ = 0, newest_ = -1;
    double next_copy_time_ = -1e300;  // copy_buffer: when the next point falls due
    bool enabled_ = false;
    std::uint64_t version_ = 0;
    float brightness_ = 0;
    double last_time_ = 0;
};

// The trail length that fits kMaxTrailBytes for `bodies` bodies (at least 2 points).
int capped_trail_length(int length, std::size_t bodies);

}  // namespace nbody::render
