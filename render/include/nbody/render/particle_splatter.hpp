#pragma once
// Particles drawn without the rasteriser: a compute pass adds each sprite's light, as
// fixed-point integers, into a few size layers of per-pixel sums; each layer is then blurred
// with the Gaussian of its sprite width and the layers are summed into the float target.
//
// Why: GL points cost ~4.4 ns each on an H100 whatever their number (device runs 90 and 92:
// 4.6 ms at 1M, 70.8 ms at 16M), because the H100 is a compute part with little raster
// hardware. Here a sprite costs its atomic adds (bilinear weights into one or two layers: 12
// or 24) and the blur costs a fixed amount per pixel. Integer sums do not depend on the order
// threads run, so a frame is reproducible to the bit.
//
// What it gives up: a sprite's width is approximated by the two nearest layers (layer k is
// 2^k times the narrowest); sprites wider than the widest layer are drawn whole, as GL would.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nbody/render/gl_objects.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/shader.hpp"
#include "nbody/render/sprite_arithmetic.hpp"

namespace nbody::render {

// Gaussian blur of one size layer (weights centre-first, summing to 1 over both sides).
struct SplatLayerBlur {
    float width = 0;  // sprite width the layer stands for, pixels
    int radius = 0;
    std::vector<float> weights;  // radius + 1 of them
};

// The layers for sprites at least `narrowest` pixels wide: widths narrowest * 2^k. Each blur is
// the sprite's Gaussian less the spread its bilinear deposit already gives (1/6 pixel^2).
std::vector<SplatLayerBlur> splat_layer_blurs(float narrowest, int layers);

class ParticleSplatter {
  public:
    static constexpr int kLayers = 3;
    // Light per pixel and plane at which a sum saturates; white is about 5 after exposure.
    static constexpr double kCapLight = 4096.0;

    ParticleSplatter();
    std::string reload_shaders();

    // The programs that evaluate sprites: the caller sets particle_sprite.glsl's uniforms on
    // both (ParticleRenderer does it for the GL points program too).
    const ShaderProgram& splat_program() const { return splat_; }
    const ShaderProgram& large_program() const { return large_; }

    // Writes (not adds) every particle's light into `target_texture`, of `width` x `height`
    // pixels and `target_format` GL_RGBA16F or GL_RGBA32F; `narrowest`: the narrowest sprite
    // width (u_min_size), pixels. begin(), deposit() and finish() in a row.
    void draw(const ParticleBuffers& particles, int width, int height, GLuint target_texture, GLenum target_format,
              float narrowest);

    // A frame in its three parts, for a deposit made elsewhere (CudaSplatDeposit): begin() sizes
    // the sums and sets the passes' uniforms; deposit() zeroes the sums and adds every particle's
    // light (splat_clear.comp, splat.comp); finish() draws the wide sprites whole and resolves
    // the layers into the target (splat_large.comp, splat_resolve.comp).
    void begin(std::size_t bodies, int width, int height, float narrowest);
    void deposit(const ParticleBuffers& particles);
    void finish(const ParticleBuffers& particles, GLuint target_texture, GLenum target_format);

    // Of the frame begin() set up: splat.comp's uniforms, and the buffers it writes (the sums,
    // their saturation bits, the list of wide sprites: a count, two unused words, indices).
    const sprite::SplatUniforms& splat_uniforms() const { return uniforms_; }
    GLuint light_buffer() const { return light_.id(); }
    std::size_t light_bytes() const { return light_quads_ * 16; }
    GLuint saturated_buffer() const { return saturated_.id(); }
    std::size_t saturated_bytes() const { return saturated_quads_ * 16; }
    GLuint large_list_buffer() const { return large_list_.id(); }
    // The sums and the saturation bits as they are now (tests: the two deposits compared).
    std::vector<std::uint32_t> read_sums() const;

  private:
    void ensure_buffers(int width, int height, std::size_t bodies);
    // The layers' uniforms of each pass, from the blurs of one frame (computed once a frame).
    void set_layer_uniforms(const ShaderProgram& program, const std::vector<SplatLayerBlur>& blurs) const;
    void bind_buffers(const ParticleBuffers& particles) const;

    ShaderProgram clear_, splat_, large_, resolve16_, resolve32_;
    GlBuffer light_, saturated_, large_list_;
    int width_ = 0, height_ = 0;
    std::size_t large_capacity_ = 0;
    std::size_t light_quads_ = 0, saturated_quads_ = 0;
    sprite::SplatUniforms uniforms_;
    std::vector<SplatLayerBlur> blurs_;
};

}  // namespace nbody::render
