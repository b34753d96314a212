#pragma once
// Draws particles as soft Gaussian point sprites, adding their light into a floating-point
// target (RGBA16F or RGBA32F: additive blending of hundreds of thousands of faint sprites
// would band and clip in 8 bits), then tone maps that target onto the output framebuffer with
// an optional glow taken from its mipmap chain.

#include <cstddef>
#include <glm/glm.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/colormap.hpp"
#include "nbody/render/cuda_splat_deposit.hpp"
#include "nbody/render/gl_objects.hpp"
#include "nbody/render/gpu_timer.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/particle_splatter.hpp"
#include "nbody/render/shader.hpp"
#include "nbody/render/sprite_looks.hpp"
#include "nbody/render/trail_renderer.hpp"

namespace nbody::render {

// Mass: a star's main-sequence colour and a size by its mass (stellar_colours.hpp), for clusters.
enum class ColourMode { Galaxy = 0, Component = 1, Speed = 2, Plain = 3, Mass = 4 };

// How sprites reach the float target: GL point sprites, or the compute pass of
// particle_splatter.hpp (the same picture, within its layer approximation, at a cost per
// particle that does not need raster hardware), or that pass's deposit as CUDA kernels in the
// simulation's CUDA context (cuda_splat_deposit.hpp: the same sums; GL resolves them). Auto:
// compute from 65,536 bodies up on a GPU, CUDA there when `cuda_preferred` (the cuda backend
// steps beside the frame loop through interop: GL's compute passes would be time-sliced
// against its kernels); points on a software renderer, where the compute path's passes over
// every pixel of its layers cost ~1 s a frame at 1280x720 (llvmpipe, 8,192 bodies: 1,020 ms
// against 10.6).
enum class SpriteDrawing { Auto = 0, Points = 1, Compute = 2, Cuda = 3 };
SpriteDrawing chosen_sprite_drawing(SpriteDrawing wanted, std::size_t bodies, bool software_renderer,
                                    bool cuda_preferred = false);
const char* sprite_drawing_name(SpriteDrawing drawing);  // "auto", "points", "compute", "cuda"

// Plain parameters: the UI edits a copy, the renderer reads it each frame.
struct RenderSettings {
    // Point size, exposure and glow: looks_for_bodies() of N unless the user chose them
    // (`looks_chosen`; apply_looks_for_bodies, sprite_looks.hpp).
    float point_size = SpriteLooks{}.point_size;  // sprite diameter in logical pixels at the target's distance
    bool size_with_distance = true;               // nearer particles drawn larger (perspective cue)
    float exposure = SpriteLooks{}.exposure;      // linear multiplier before tone mapping
    bool constant_brightness_zoom = true;         // compensate the surface brightness change when zooming
    float glow = SpriteLooks{}.glow;              // strength of the wide halo around bright regions; 0: off
    LooksChosen looks_chosen;              // which of the three the user set
    float variety = 0.6f;                  // per-particle spread of brightness and tint (0: none)
    ColourMode colour_mode = ColourMode::Galaxy;
    ColorMap colour_map = ColorMap::Inferno;
    float speed_scale = 0.0f;  // speed mapped to the top of the colour map; 0: automatic
    float solar_masses_per_unit = 1.0f;  // ColourMode::Mass: the scene's (ic::solar_masses_per_unit)
    bool hide_halo = true;          // dark matter is not drawn unless asked for: it hides the disks
    float halo_brightness = 0.12f;  // dark matter is dark: a faint haze that shows the halo's extent
    bool float32_target = false;    // RGBA32F instead of RGBA16F
    SpriteDrawing sprites = SpriteDrawing::Auto;
    // The accumulation, glow and tone mapping are drawn at this fraction of the target's width and
    // height, and the tone-mapped frame is enlarged onto the target (bilinear) in a last pass. 1:
    // drawn at the target's size (the default). Below 1 for software renderers (llvmpipe), whose
    // cost is per pixel of each full-frame pass: 0.5 draws a quarter of the pixels.
    // kMinRenderScale..1.
    float render_scale = 1.0f;
    // The glow pyramid starts at a quarter of the frame instead of half: its narrowest ring goes
    // (the glow a little wider and softer), with two passes and 3/4 of its pixels. Off by default;
    // on with the render scale on a software renderer, where each pass costs CPU time.
    bool coarse_glow = false;
    glm::vec3 background{0.0016f, 0.0019f, 0.0036f};  // linear RGB: a deep blue-black
    TrailSettings trails;  // drawn when draw() is given a TrailRenderer
    // The particles' light (and its glow) kept from the last frame while nothing it shows has
    // changed: no new positions, the same camera, size and looks, no new trail point. Such a frame draws
    // only the tone mapping. Beside a simulation slower than the display most frames are such
    // frames, and the GPU (or llvmpipe's cores) they no longer take goes to the steps.
    // --particle-cache off: drawn every frame (timing the drawing itself).
    bool cache_particles = true;
};

inline constexpr float kMinRenderScale = 0.25f;

// The size a pass drawn at `render_scale` of a `size`-pixel side has (at least 1 pixel).
int scaled_size(int size, float render_scale);

// Where to draw: framebuffer 0 is a window's back buffer.
struct DrawTarget {
    GLuint framebuffer = 0;
    int width = 0, height = 0;
    float pixel_scale = 1.0f;  // physical pixels per logical pixel (HiDPI)
};

class ParticleRenderer {
  public:
    // Loads shaders from the shader folders; throws ShaderError naming the file and line.
    ParticleRenderer();

    // Rebuilds the programs from the files on disk. On failure the old ones stay and the
    // message is returned; empty on success.
    std::string reload_shaders();

    // `timer`, when given, gets the GPU time of the particle, glow and tone-mapping passes.
    // `trails`, when given, adds its light in the particle pass (trail_renderer.hpp).
    void draw(const ParticleBuffers& particles, const OrbitCamera& camera, const RenderSettings& settings,
              const DrawTarget& target, GpuFrameTimer* timer = nullptr, const TrailRenderer* trails = nullptr);

    // The speed used for the top of the colour map when RenderSettings::speed_scale is 0.
    void set_auto_speed_scale(float speed) { auto_speed_scale_ = speed; }
    // How the last draw() drew its sprites (never Auto).
    SpriteDrawing last_sprite_drawing() const { return last_sprite_drawing_; }
    // The compute path's passes and sums (tests compare the two deposits' sums).
    const ParticleSplatter& splatter() const { return splatter_; }
    // SpriteDrawing::Auto picks the CUDA deposit (the viewer: the cuda backend steps beside the
    // frame loop through interop).
    void prefer_cuda_sprites(bool prefer) { cuda_preferred_ = prefer; }
    // Why the last frame asked for the CUDA deposit drew by compute instead (no CUDA in this
    // build, no device, the particles' buffers not registered); empty when it did not.
    const std::string& cuda_sprites_refused() const { return cuda_refused_; }
#if NBODY_HAVE_CUDA
    // GPU time of the CUDA deposit per frame (CUDA events); null before its first frame.
    CudaStreamTimer* cuda_sprite_timer() { return cuda_deposit_ ? &cuda_deposit_->timer() : nullptr; }
    // The CUDA deposit, made on first use; null where it cannot be (cuda_sprites_refused says why).
    CudaSplatDeposit* cuda_deposit();
#endif
    float auto_speed_scale() const { return auto_speed_scale_; }
    // Frames whose particles were drawn, and frames that kept the last frame's
    // (RenderSettings::cache_particles), since this renderer was made.
    long long particle_draws() const { return particle_draws_; }
    long long particle_keeps() const { return particle_keeps_; }
    long long tone_maps() const { return tone_maps_; }  // frames that tone mapped the light

  private:
    // What the particle pass and the glow last drew into their targets: a frame with the same
    // key would draw the same light again.
    struct ParticleLayer {
        std::uint64_t positions = 0;  // ParticleBuffers::generation()
        sprite::SpriteUniforms uniforms;
        int width = 0, height = 0, glow_levels = 0, glow_first = 0, colour_map = -1;
        SpriteDrawing drawing = SpriteDrawing::Points;
        GLenum format = 0;
        std::uint64_t trails = 0;  // TrailRenderer::version() of the trails drawn into it; 0: none
    };
    static bool same_light(const ParticleLayer& a, const ParticleLayer& b);
    // What the tone mapping reads besides the light: a kept light tone mapped as before gives the
    // same frame.
    struct ToneMapping {
        float glow_strength = 0;
        glm::vec3 background{0.0f};
        int width = 0, height = 0;
    };
    static bool same_tone(const ToneMapping& a, const ToneMapping& b);
    static void reset_draw_state();
    void tone_map(GLuint framebuffer, const ToneMapping& tone, int glow, int glow_first);
    // Passes 2 and 3: the light tone mapped (or the tone-mapped frame kept) and put on `target`.
    void put_on_target(const DrawTarget& target, const ToneMapping& tone, bool light_kept, bool cache, int glow,
                       int glow_first, GpuFrameTimer* timer);
    void draw_light(const ParticleBuffers& particles, const ParticleLayer& layer, GpuFrameTimer* timer,
                    const TrailRenderer* trails, const RenderSettings& settings);

    void update_colour_map(const RenderSettings& settings);  // the map, or the stellar colours

    void build_glow(int width, int height, int first, int levels);
    float sprite_intensity(const ParticleBuffers& particles, const OrbitCamera& camera,
                           const RenderSettings& settings) const;
    // particle_sprite.glsl's uniforms for this frame, once: GL's programs and the CUDA deposit
    // are given the same values.
    sprite::SpriteUniforms sprite_uniforms(const ParticleBuffers& particles, const OrbitCamera& camera,
                                           const RenderSettings& settings, float aspect, float scale,
                                           float intensity) const;
    // The sprites' light into the accumulation target by the compute passes, their deposit by
    // CUDA when `by_cuda` (false when that cannot be done this frame).
    void splat(const ParticleBuffers& particles, const sprite::SpriteUniforms& uniforms, int width, int height,
               bool by_cuda);
    bool cuda_deposit_usable(const ParticleBuffers& particles);

    ShaderProgram particles_;
    ShaderProgram glow_;       // one level on the way up
    ShaderProgram glow_down_;  // one level on the way down
    ShaderProgram tonemap_;
    GlVertexArray particle_vao_;
    GlVertexArray empty_vao_;
    GlTexture colour_map_;
    int colour_map_loaded_ = -1;
    // Bound to every sampler a pass declares but does not use (the glow texture when the glow
    // is off): sampling a unit with no texture is defined by the spec, but not worth trusting.
    GlTexture black_;
    RenderTarget accumulation_;
    // [L]: 1/2^L of the target's size (rounded up); [0] unused. The up chain's smallest level is
    // the down chain's.
    std::vector<RenderTarget> glow_down_levels_, glow_up_;
    // The tone-mapped frame (8 bits, sRGB-encoded) put on the target in the last pass: enlarged
    // at RenderSettings::render_scale below 1, copied at 1 with the cache (kept with the light).
    RenderTarget toned_frame_;
    float auto_speed_scale_ = 1.0f;
    ParticleSplatter splatter_;
    SpriteDrawing last_sprite_drawing_ = SpriteDrawing::Points;
    bool software_renderer_ = false;  // context.hpp's is_software_renderer
    bool cuda_preferred_ = false;
    std::string cuda_refused_;
    // The colour map's texels as GL holds them (half precision), for the CUDA deposit.
    std::vector<sprite::F3> colour_table_;
    bool colour_table_sent_ = false;
    std::optional<ParticleLayer> drawn_;  // none: the targets hold nothing to keep
    std::optional<ToneMapping> toned_;    // what toned_frame_ holds; none: nothing to keep
    long long particle_draws_ = 0, particle_keeps_ = 0, tone_maps_ = 0;
#if NBODY_HAVE_CUDA
    std::unique_ptr<CudaSplatDeposit> cuda_deposit_;
    bool cuda_deposit_failed_ = false;  // its construction threw: not tried again
#endif
};

// The hue galaxy `k` is drawn in when colouring by galaxy (linear RGB), for legends.
glm::vec3 galaxy_colour(int k);
// The hue of component `c` (Component's value) when colouring by component, and the plain colour.
glm::vec3 component_colour(int c);
glm::vec3 plain_colour();

// Glow pyramid levels for a frame `height` pixels tall: 6 at 720, one more per doubling, so the
// glow covers the same fraction of any frame.
int glow_levels(int height);

// 95th percentile of the particles' speeds: a colour-map scale that outliers do not dominate.
float typical_speed(const State& state);

}  // namespace nbody::render
