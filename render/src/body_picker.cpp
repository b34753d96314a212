#include "nbody/render/body_picker.hpp"

#include <stdexcept>
#include <string>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

namespace {
constexpr GLuint kNone = 0xffffffffu;
constexpr GLuint kGroup = 256;  // pick.comp's local_size_x
}  // namespace

BodyPicker::BodyPicker() {
    program_ = ShaderProgram::load({"pick.comp"});
    const GLuint none[2] = {kNone, kNone};
    result_ = create_buffer_storage(sizeof none, none, GL_DYNAMIC_STORAGE_BIT);
}

std::optional<std::size_t> BodyPicker::pick(const ParticleBuffers& particles, const OrbitCamera& camera,
                                            const PickRequest& request) {
    if (particles.size() == 0 || request.width <= 0 || request.height <= 0) return std::nullopt;
    const GLuint none[2] = {kNone, kNone};
    glNamedBufferSubData(result_.id(), 0, sizeof none, none);
    const ShaderProgram& p = program_;
    const float aspect = float(request.width) / float(request.height);
    p.set("u_view_projection", camera.projection(aspect) * camera.view());
    p.set("u_cursor", request.pixel);
    p.set("u_size", glm::vec2(float(request.width), float(request.height)));
    p.set("u_radius2", request.radius_px * request.radius_px);
    p.set("u_bodies", int(particles.size()));
    p.set("u_skip_halo", int(request.skip_halo));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, particles.current());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, particles.labels());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, result_.id());
    p.use();
    const GLuint groups = GLuint((particles.size() + kGroup - 1) / kGroup);
    for (int pass = 0; pass < 2; ++pass) {
        p.set("u_pass", pass);
        glDispatchCompute(groups, 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    }
    for (GLuint b = 0; b < 3; ++b) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, 0);
    glUseProgram(0);
    GLuint result[2] = {kNone, kNone};
    glGetNamedBufferSubData(result_.id(), 0, sizeof result, result);
    NBODY_GL_CHECK_STATE("picking a body");
    if (result[1] == kNone || result[1] >= particles.size()) return std::nullopt;
    return std::size_t(result[1]);
}

BodySample read_body(const ParticleBuffers& particles, std::size_t index) {
    if (index >= particles.size())
        throw std::out_of_range("body " + std::to_string(index) + " does not exist (N = " +
                                std::to_string(particles.size()) + ")");
    Vec4f now{}, before{};
    const GLintptr offset = GLintptr(index * sizeof(Vec4f));
    glGetNamedBufferSubData(particles.current(), offset, sizeof now, &now);
    glGetNamedBufferSubData(particles.previous(), offset, sizeof before, &before);
    NBODY_GL_CHECK_STATE("reading one body back");
    BodySample s;
    s.position = {now.x, now.y, now.z};
    s.mass = now.w;
    const double dt = particles.current_time() - particles.previous_time();
    if (dt > 0) {
        s.velocity = glm::vec3(now.x - before.x, now.y - before.y, now.z - before.z) / float(dt);
        s.velocity_known = true;
    }
    return s;
}

}  // namespace nbody::render
