#include "nbody/render/particle_buffers.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

std::uint32_t pack_label(std::uint16_t galaxy, Component component) {
    return std::uint32_t(galaxy) | (std::uint32_t(static_cast<std::uint8_t>(component)) << 16);
}

// One counter for every ParticleBuffers: a renderer handed other buffers never takes their
// generation for the one it drew.
void ParticleBuffers::changed() const {
    static std::atomic<std::uint64_t> next{1};
    generation_ = next.fetch_add(1, std::memory_order_relaxed);
}

void ParticleBuffers::load(const State& state, double dt) {
    const std::size_t n = state.size();
    if (state.velocity.size() != n)
        throw std::invalid_argument("ParticleBuffers::load: velocity count differs from position count");
#if NBODY_HAVE_CUDA
    disable_cuda_interop();  // before the buffers it registers go away
#endif
    std::vector<Vec4f> previous(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec4f& p = state.pos_mass[i];
        const Vec4f& v = state.velocity[i];
        previous[i] = {float(p.x - v.x * dt), float(p.y - v.y * dt), float(p.z - v.z * dt), p.w};
    }
    std::vector<std::uint32_t> labels(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t g = i < state.galaxy.size() ? state.galaxy[i] : 0;
        const Component c = i < state.component.size() ? state.component[i] : Component::Unspecified;
        labels[i] = pack_label(g, c);
    }
    const std::size_t bytes = n * sizeof(Vec4f);
    // Mutable storage: the kind CUDA registration is proven on, and the DYNAMIC hint tells the
    // driver the positions are rewritten every frame. The labels are registered too (the CUDA
    // deposit reads them).
    GlBuffer a = create_mutable_buffer(bytes, state.pos_mass.data(), GL_DYNAMIC_DRAW);
    GlBuffer b = create_mutable_buffer(bytes, previous.data(), GL_DYNAMIC_DRAW);
    GlBuffer l = create_mutable_buffer(n * sizeof(std::uint32_t), labels.data(), GL_STATIC_DRAW);
    positions_[0] = std::move(a);
    positions_[1] = std::move(b);
    labels_ = std::move(l);
    current_ = 0;
    size_ = n;
    time_[0] = state.time;
    time_[1] = state.time - dt;
    changed();
}

std::size_t ParticleBuffers::upload(const std::vector<Vec4f>& positions, double time) {
    if (positions.size() != size_)
        throw std::invalid_argument("ParticleBuffers::upload: " + std::to_string(positions.size()) +
                                    " positions for " + std::to_string(size_) + " particles");
    const int next = 1 - current_;
    NBODY_GL_CHECK(
        glNamedBufferSubData(positions_[next].id(), 0, GLsizeiptr(position_bytes()), positions.data()));
    swap(time);
    return position_bytes();
}

void ParticleBuffers::swap(double time) {
    current_ = 1 - current_;
    time_[current_] = time;
    changed();
}

std::vector<Vec4f> ParticleBuffers::read_current() const {
    std::vector<Vec4f> out(size_);
    if (size_)
        NBODY_GL_CHECK(glGetNamedBufferSubData(current(), 0, GLsizeiptr(position_bytes()), out.data()));
    return out;
}

#if NBODY_HAVE_CUDA
std::string ParticleBuffers::enable_cuda_interop() {
    if (cuda_interop_enabled()) return {};
    try {
        CudaGlRegistration a(positions_[0].id());
        CudaGlRegistration b(positions_[1].id());
        CudaGlRegistration l(labels_.id());
        if (!written_) written_ = std::make_unique<CudaEvent>();
        registration_[0] = std::move(a);
        registration_[1] = std::move(b);
        labels_registration_ = std::move(l);
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

void ParticleBuffers::disable_cuda_interop() {
    registration_[0].reset();
    registration_[1].reset();
    labels_registration_.reset();
}

ScopedCudaMap ParticleBuffers::map_for_step(void* stream) const {
    return ScopedCudaMap({{&registration_[current_], MapHint::ReadOnly},
                          {&registration_[1 - current_], MapHint::WriteDiscard}},
                         stream, written_.get());
}

ScopedCudaMap ParticleBuffers::map_current(void* stream) const {
    changed();
    return ScopedCudaMap({{&registration_[current_], MapHint::ReadWrite}}, stream, written_.get());
}

bool ParticleBuffers::show_published(PublishedPositions& published) {
    if (!published.has_newer()) return false;  // no mapping (and its driver work) for nothing
    ScopedCudaMap map({{&registration_[1 - current_], MapHint::WriteDiscard}}, published.copy_stream());
    const std::optional<double> time = published.copy_newest(map.pointer(0), map.bytes(0));
    map.unmap();
    if (time) {
        swap(*time);
        written_->record(published.copy_stream());
    }
    return time.has_value();
}

ScopedCudaMap ParticleBuffers::map_both(void* stream) const {
    changed();  // each step's swap() marks its change too; a step may write without one
    return ScopedCudaMap({{&registration_[0], MapHint::ReadWrite}, {&registration_[1], MapHint::ReadWrite}},
                         stream, written_.get());
}
#endif

}  // namespace nbody::render
