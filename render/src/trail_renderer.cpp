#include "nbody/render/trail_renderer.hpp"

#include <algorithm>
#include <atomic>

#include "nbody/render/gl_check.hpp"
#include "nbody/render/particle_renderer.hpp"

namespace nbody::render {

namespace {
constexpr std::size_t kBytesPerPoint = 4 * sizeof(float);  // one float4 per body per point
// Light per pixel of a trail's newest segment, relative to a sprite's peak light, for
// TrailSettings::brightness = 1 (the default 0.25 gives 0.005). Small, because trails come in
// bundles: the bodies of a galaxy move together, so its N_g trails overlap across a band some ten
// pixels wide; and since a sprite's light is scaled by 1/N (ParticleRenderer), a bundle's
// brightness does not depend on N. Chosen by eye on the figure-eight scene (docs/CAMERA-PATHS.md):
// four times that turns the bundles' cores white.
constexpr float kTrailLightPerUnit = 0.02f;
}

int capped_trail_length(int length, std::size_t bodies) {
    const std::size_t fit = kMaxTrailBytes / (kBytesPerPoint * std::max<std::size_t>(bodies, 1));
    return int(std::clamp<std::size_t>(std::min<std::size_t>(std::size_t(std::max(length, 2)), fit), 2,
                                       std::size_t(kMaxTrailLength)));
}

TrailRenderer::TrailRenderer() {
    program_ = ShaderProgram::load({"trails.vert", "trails.frag"});
    vao_ = create_vertex_array();
}

// One counter for every TrailRenderer, as ParticleBuffers::generation().
void TrailRenderer::changed() {
    static std::atomic<std::uint64_t> next{1};
    version_ = next.fetch_add(1, std::memory_order_relaxed);
}

void TrailRenderer::update(const ParticleBuffers& particles, const TrailSettings& settings, bool copy_buffer) {
    const bool enabled = settings.enabled && particles.size() > 0;
    if (enabled != enabled_ || settings.brightness != brightness_) changed();
    enabled_ = enabled;
    brightness_ = settings.brightness;
    if (!enabled_) {
        ring_.reset();  // the memory is the trails' whole cost: give it back
        capacity_ = filled_ = 0;
        bodies_ = 0;
        return;
    }
    const int capacity = capped_trail_length(settings.length, particles.size());
    const double time = particles.current_time();
    if (!ring_ || capacity != capacity_ || particles.size() != bodies_) {
        ring_ = create_buffer_storage(std::size_t(capacity) * particles.size() * kBytesPerPoint, nullptr,
                                      GL_DYNAMIC_STORAGE_BIT);  // append() uploads the points sampled on the host
        capacity_ = capacity;
        bodies_ = particles.size();
        filled_ = 0;
        changed();
    } else if (time < last_time_) {
        filled_ = 0;  // reset to an earlier state: the old history would join unrelated places
        changed();
    }
    const bool moved = filled_ == 0 || time != last_time_;
    last_time_ = time;
    if (filled_ == 0) next_copy_time_ = -1e300;
    if (!copy_buffer || !moved || time < next_copy_time_) return;  // paused: the trail stays as it is
    next_copy_time_ = time + std::max(settings.interval, 0.0);
    const GLintptr slot = next_slot();
    glCopyNamedBufferSubData(particles.current(), ring_.id(), 0, slot, GLsizeiptr(bodies_ * kBytesPerPoint));
    NBODY_GL_CHECK_STATE("copying positions into the trail ring");
}

void TrailRenderer::append(const TrailPoint& point) {
    if (!enabled_ || !ring_ || point.positions.size() != bodies_) return;
    const GLintptr slot = next_slot();
    glNamedBufferSubData(ring_.id(), slot, GLsizeiptr(bodies_ * kBytesPerPoint), point.positions.data());
    NBODY_GL_CHECK_STATE("uploading a trail point");
}

GLintptr TrailRenderer::next_slot() {
    changed();
    newest_ = (newest_ + 1) % capacity_;
    filled_ = std::min(filled_ + 1, capacity_);
    return GLintptr(std::size_t(newest_) * bodies_ * kBytesPerPoint);
}

void TrailRenderer::draw(const ParticleBuffers& particles, const glm::mat4& view_projection,
                         const RenderSettings& settings, float intensity) const {
    if (!active() || particles.size() != bodies_) return;
    const ShaderProgram& p = program_;
    p.set("u_view_projection", view_projection);
    p.set("u_bodies", int(bodies_));
    p.set("u_capacity", capacity_);
    p.set("u_points", filled_);
    p.set("u_newest", newest_);
    p.set("u_intensity", intensity * brightness_ * kTrailLightPerUnit);
    p.set("u_colour_mode", int(settings.colour_mode));
    p.set("u_hide_halo", int(settings.hide_halo));
    glm::vec3 galaxies[8], components[5];
    for (int k = 0; k < 8; ++k) galaxies[k] = galaxy_colour(k);
    for (int k = 0; k < 5; ++k) components[k] = component_colour(k);
    p.set("u_galaxy_colours", galaxies, 8);
    p.set("u_component_colours", components, 5);
    p.set("u_plain_colour", plain_colour());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, ring_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, particles.current());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, particles.labels());
    glBindVertexArray(vao_.id());
    p.use();
    glDrawArrays(GL_LINES, 0, GLsizei(std::size_t(2) * std::size_t(filled_) * bodies_));
    for (GLuint b = 0; b < 3; ++b) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, 0);
    NBODY_GL_CHECK_STATE("drawing trails");
}

}  // namespace nbody::render
