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
#include <string>
#include <vector>

#include "nbody/render/gl_objects.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/shader.hpp"

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
    // width (u_min_size), pixels.
    void draw(const ParticleBuffers& particles, int width, int height, GLuint target_texture, GLenum target_format,
              float narrowest);

  private:
    void ensure_buffers(int width, int height, std::size_t bodies);
    // The layers' uniforms of each pass, from the blurs of one frame (computed once a frame).
    void set_layer_uniforms(const ShaderProgram& program, float narrowest,
                            const std::vector<SplatLayerBlur>& blurs) const;

    ShaderProgram clear_, splat_, large_, resolve16_, resolve32_;
    GlBuffer light_, saturated_, large_list_;
    int width_ = 0, height_ = 0;
    std::size_t large_capacity_ = 0;
    std::size_t light_quads_ = 0, saturated_quads_ = 0;
};

}  // namespace nbody::render
