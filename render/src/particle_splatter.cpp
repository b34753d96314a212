#include "nbody/render/particle_splatter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

namespace {

constexpr GLuint kGroup = 256;  // splat.comp's local_size_x
constexpr GLuint kMaxGroupsX = 65535;  // the least GL_MAX_COMPUTE_WORK_GROUP_COUNT every GL allows
constexpr GLuint kTile = 16;    // splat_resolve.comp's local size in x and in y
// Groups that walk the list of wide sprites (splat_large.comp): enough to fill a GPU when the
// camera is inside a galaxy, few enough that an empty list costs nothing to speak of.
constexpr GLuint kLargeGroups = 1024;
// The shaders' arrays: kMaxLayers and kMaxRadius in splat_resolve.comp.
constexpr int kMaxLayers = 4;
constexpr int kMaxRadius = 8;
// Wide sprites listed per frame; beyond it they are splatted into the widest layer instead.
constexpr std::size_t kMaxLargeSprites = 1u << 20;
constexpr GLuint kLargeHeaderWords = 3;  // the list's count, then two words kept for an indirect dispatch

GLuint groups_for(std::size_t items, GLuint group) { return GLuint((items + group - 1) / group); }

// `groups` workgroups in rows of at most kMaxGroupsX; the shaders number them row by row.
void dispatch_rows(GLuint groups) { glDispatchCompute(std::min(groups, kMaxGroupsX), groups_for(groups, kMaxGroupsX), 1); }

}  // namespace

std::vector<SplatLayerBlur> splat_layer_blurs(float narrowest, int layers) {
    std::vector<SplatLayerBlur> blurs(std::size_t(std::max(layers, 0)));
    for (int k = 0; k < layers; ++k) {
        SplatLayerBlur& b = blurs[std::size_t(k)];
        b.width = narrowest * float(1 << k);
        // sprite_profile is close to exp(-x^2 / (2 sigma^2)) with sigma^2 = width^2 / 32.
        const double sigma2 = std::max(double(b.width) * b.width / 32.0 - 1.0 / 6.0, 0.04);
        b.radius = std::clamp(int(std::ceil(3.0 * std::sqrt(sigma2))), 1, kMaxRadius);
        b.weights.resize(std::size_t(b.radius) + 1);
        double sum = 0;
        for (int t = 0; t <= b.radius; ++t) {
            b.weights[std::size_t(t)] = float(std::exp(-double(t) * t / (2 * sigma2)));
            sum += (t == 0 ? 1.0 : 2.0) * b.weights[std::size_t(t)];
        }
        for (float& w : b.weights) w = float(w / sum);
    }
    return blurs;
}

ParticleSplatter::ParticleSplatter() {
    if (const std::string error = reload_shaders(); !error.empty()) throw ShaderError(error);
}

std::string ParticleSplatter::reload_shaders() {
    try {
        ShaderProgram clear = ShaderProgram::load({"splat_clear.comp"});
        ShaderProgram splat = ShaderProgram::load({"splat.comp"});
        ShaderProgram large = ShaderProgram::load({"splat_large.comp"});
        ShaderProgram resolve16 = ShaderProgram::load({"splat_resolve.comp"});
        ShaderProgram resolve32 = ShaderProgram::load_with("#define TARGET_FORMAT rgba32f", {"splat_resolve.comp"});
        clear_ = std::move(clear);
        splat_ = std::move(splat);
        large_ = std::move(large);
        resolve16_ = std::move(resolve16);
        resolve32_ = std::move(resolve32);
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

void ParticleSplatter::ensure_buffers(int width, int height, std::size_t bodies) {
    const std::size_t planes = std::size_t(kLayers + 1) * 3;
    const std::size_t plane_pixels = std::size_t(width) * std::size_t(height);
    // Mutable storage: the CUDA deposit registers these buffers (cuda_splat_deposit.hpp).
    if (width != width_ || height != height_) {
        // Whole 16-byte quads: splat_clear.comp zeroes them as uvec4s.
        light_quads_ = planes * plane_pixels / 4;  // planes is a multiple of 4 (3 channels x 4 sets)
        saturated_quads_ = ((planes * plane_pixels + 31) / 32 + 3) / 4;
        light_ = create_mutable_buffer(light_quads_ * 16, nullptr, GL_DYNAMIC_COPY);
        saturated_ = create_mutable_buffer(saturated_quads_ * 16, nullptr, GL_DYNAMIC_COPY);
        width_ = width;
        height_ = height;
    }
    const std::size_t capacity = std::min(std::max<std::size_t>(bodies, 1024), kMaxLargeSprites);
    if (capacity > large_capacity_) {
        large_list_ = create_mutable_buffer((kLargeHeaderWords + capacity) * sizeof(std::uint32_t), nullptr,
                                            GL_DYNAMIC_COPY);
        large_capacity_ = capacity;
    }
    NBODY_GL_CHECK_STATE("allocating the splat buffers");
}

void ParticleSplatter::set_layer_uniforms(const ShaderProgram& program,
                                          const std::vector<SplatLayerBlur>& blurs) const {
    program.set("u_size", glm::ivec2(uniforms_.width, uniforms_.height));
    program.set("u_layers", uniforms_.layers);
    program.set("u_layer0_inv_width", uniforms_.layer0_inv_width);
    program.set("u_units", uniforms_.units);
    program.set("u_large_capacity", unsigned(uniforms_.large_capacity));
    int radius[kMaxLayers] = {};
    float weights[kMaxLayers * (kMaxRadius + 1)] = {};
    for (int k = 0; k < kLayers; ++k) {
        radius[k] = blurs[std::size_t(k)].radius;
        std::copy(blurs[std::size_t(k)].weights.begin(), blurs[std::size_t(k)].weights.end(),
                  weights + k * (kMaxRadius + 1));
    }
    program.set("u_radius", radius, kMaxLayers);
    program.set("u_weights", weights, kMaxLayers * (kMaxRadius + 1));
}

void ParticleSplatter::begin(std::size_t bodies, int width, int height, float narrowest) {
    ensure_buffers(width, height, bodies);
    uniforms_.width = width_;
    uniforms_.height = height_;
    uniforms_.layers = kLayers;
    uniforms_.layer0_inv_width = 1.0f / narrowest;  // the host's correctly rounded quotient, for both deposits
    uniforms_.units = float(4294967296.0 / kCapLight);
    uniforms_.large_capacity = std::uint32_t(large_capacity_);
    blurs_ = splat_layer_blurs(narrowest, kLayers);
    for (const ShaderProgram* p : {&splat_, &large_, &resolve16_, &resolve32_}) set_layer_uniforms(*p, blurs_);
}

void ParticleSplatter::bind_buffers(const ParticleBuffers& particles) const {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, particles.current());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, particles.previous());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, particles.labels());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, light_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, saturated_.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, large_list_.id());
}

void ParticleSplatter::deposit(const ParticleBuffers& particles) {
    const GLuint header[kLargeHeaderWords] = {0, 1, 1};
    glNamedBufferSubData(large_list_.id(), 0, sizeof header, header);
    bind_buffers(particles);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    clear_.set("u_light_quads", unsigned(light_quads_));
    clear_.set("u_saturated_quads", unsigned(saturated_quads_));
    clear_.use();
    dispatch_rows(groups_for(std::max(light_quads_, saturated_quads_), kGroup));
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    splat_.set("u_bodies", int(particles.size()));
    if (particles.size() > 0) {
        splat_.use();
        dispatch_rows(groups_for(particles.size(), kGroup));
    }
    glUseProgram(0);
    for (GLuint b = 0; b <= 5; ++b) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, 0);
    NBODY_GL_CHECK_STATE("adding the particles' light");
}

void ParticleSplatter::finish(const ParticleBuffers& particles, GLuint target_texture, GLenum target_format) {
    if (target_format != GL_RGBA32F && target_format != GL_RGBA16F)
        throw std::invalid_argument("the splat target must be GL_RGBA16F or GL_RGBA32F");
    bind_buffers(particles);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    if (particles.size() > 0) {
        large_.use();
        glDispatchCompute(kLargeGroups, 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    glBindImageTexture(0, target_texture, 0, GL_FALSE, 0, GL_WRITE_ONLY, target_format);
    (target_format == GL_RGBA32F ? resolve32_ : resolve16_).use();
    glDispatchCompute(groups_for(std::size_t(width_), kTile), groups_for(std::size_t(height_), kTile), 1);
    // The glow and the tone mapper sample the target, the trails blend into it.
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, target_format);
    glUseProgram(0);
    for (GLuint b = 0; b <= 5; ++b) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, 0);
    NBODY_GL_CHECK_STATE("splatting particles");
}

void ParticleSplatter::draw(const ParticleBuffers& particles, int width, int height, GLuint target_texture,
                            GLenum target_format, float narrowest) {
    begin(particles.size(), width, height, narrowest);
    deposit(particles);
    finish(particles, target_texture, target_format);
}

std::vector<std::uint32_t> ParticleSplatter::read_sums() const {
    std::vector<std::uint32_t> out((light_bytes() + saturated_bytes()) / sizeof(std::uint32_t));
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    NBODY_GL_CHECK(glGetNamedBufferSubData(light_.id(), 0, GLsizeiptr(light_bytes()), out.data()));
    NBODY_GL_CHECK(glGetNamedBufferSubData(saturated_.id(), 0, GLsizeiptr(saturated_bytes()),
                                           out.data() + light_bytes() / sizeof(std::uint32_t)));
    return out;
}

}  // namespace nbody::render
