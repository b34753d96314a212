#include "nbody/render/particle_renderer.hpp"
#include "nbody/render/stellar_colours.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <glm/gtc/packing.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "nbody/render/context.hpp"
#include "nbody/render/gl_check.hpp"

namespace nbody::render {

namespace {

// Glow pyramid depth at 720 lines: the widest ring is 2^6 = 64 pixels of blur, about a tenth of
// the frame. Other heights get as many levels as keep that fraction (glow_levels()), so a
// 640x360 preview and a 1080p movie show the same glow.
constexpr int kGlowLevels720 = 6;
// The frame height at which sprite sizes are given: other heights scale them, so that a particle
// covers the same fraction of any frame.
constexpr float kReferenceHeight = 720.0f;
// Sprites narrower than this (physical pixels) are drawn this wide and dimmed: the light a
// Gaussian sprite leaves on the pixel grid then varies by 1% with its sub-pixel position (58% at
// 1.5 px), so slowly moving particles do not twinkle and frames do not flicker.
constexpr float kMinSpritePixels = 3.0f;
// Particles at which one sprite's peak light is 1 before exposure: fewer particles each carry
// more light, so the picture keeps about the same brightness at any N.
constexpr float kReferenceCount = 16384.0f;
constexpr float kBaseIntensity = 0.45f;
// SpriteDrawing::Auto draws by compute from this many bodies up: below it GL points cost little
// on any GPU, and the compute path's fixed cost per pixel (clearing and blurring its layers)
// is not worth paying.
constexpr std::size_t kComputeSpritesFromBodies = 65536;

// Linear RGB. Galaxy 0 warm gold, galaxy 1 blue-white: the classic pairing, and distinguishable
// for the common colour-vision deficiencies (they differ in blue-yellow, not red-green).
const std::array<glm::vec3, 8> kGalaxyColours{{{1.00f, 0.55f, 0.22f},
                                               {0.30f, 0.52f, 1.00f},
                                               {0.45f, 0.95f, 0.55f},
                                               {0.95f, 0.35f, 0.75f},
                                               {0.95f, 0.90f, 0.40f},
                                               {0.40f, 0.90f, 0.95f},
                                               {0.85f, 0.45f, 0.35f},
                                               {0.70f, 0.60f, 1.00f}}};
// Unspecified, disk, bulge, halo, star.
const std::array<glm::vec3, 5> kComponentColours{{{0.95f, 0.80f, 0.62f},
                                                  {0.42f, 0.62f, 1.00f},
                                                  {1.00f, 0.70f, 0.35f},
                                                  {0.55f, 0.30f, 0.60f},
                                                  {1.00f, 1.00f, 1.00f}}};
const glm::vec3 kPlainColour{1.0f, 0.86f, 0.70f};

}  // namespace

glm::vec3 galaxy_colour(int k) { return kGalaxyColours[std::size_t(k) % kGalaxyColours.size()]; }
glm::vec3 component_colour(int c) { return kComponentColours[std::min(std::size_t(c), kComponentColours.size() - 1)]; }
glm::vec3 plain_colour() { return kPlainColour; }

int glow_levels(int height) {
    const double levels = kGlowLevels720 + std::log2(std::max(height, 1) / double(kReferenceHeight));
    return std::clamp(int(std::lround(levels)), 2, 10);
}

int scaled_size(int size, float render_scale) {
    const float scale = std::clamp(std::isfinite(render_scale) ? render_scale : 1.0f, kMinRenderScale, 1.0f);
    return std::max(1, int(std::lround(double(std::max(size, 1)) * scale)));
}

float typical_speed(const State& state) {
    if (state.velocity.empty()) return 1.0f;
    std::vector<float> speeds(state.velocity.size());
    for (std::size_t i = 0; i < speeds.size(); ++i) {
        const Vec4f& v = state.velocity[i];
        speeds[i] = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    }
    auto p95 = speeds.begin() + static_cast<std::ptrdiff_t>(0.95 * double(speeds.size() - 1));
    std::nth_element(speeds.begin(), p95, speeds.end());
    return *p95 > 0 ? *p95 : 1.0f;
}

ParticleRenderer::ParticleRenderer() : software_renderer_(is_software_renderer(query_gl_info().renderer)) {
    particles_ = ShaderProgram::load({"particles.vert", "particles.frag"});
    glow_ = ShaderProgram::load({"fullscreen.vert", "glow.frag"});
    glow_down_ = ShaderProgram::load({"fullscreen.vert", "glow_down.frag"});
    tonemap_ = ShaderProgram::load({"fullscreen.vert", "tonemap.frag"});

    particle_vao_ = create_vertex_array();
    const GLuint vao = particle_vao_.id();
    glVertexArrayAttribFormat(vao, 0, 4, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(vao, 0, 0);
    glEnableVertexArrayAttrib(vao, 0);
    glVertexArrayAttribFormat(vao, 1, 4, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(vao, 1, 1);
    glEnableVertexArrayAttrib(vao, 1);
    glVertexArrayAttribIFormat(vao, 2, 1, GL_UNSIGNED_INT, 0);
    glVertexArrayAttribBinding(vao, 2, 2);
    glEnableVertexArrayAttrib(vao, 2);
    NBODY_GL_CHECK_STATE("setting up the particle vertex array");

    // Core profiles draw nothing without a vertex array bound, even with no attributes.
    empty_vao_ = create_vertex_array();

    black_ = create_texture(GL_TEXTURE_2D);
    const float zero[4] = {0, 0, 0, 0};
    glTextureStorage2D(black_.id(), 1, GL_RGBA16F, 1, 1);
    glTextureSubImage2D(black_.id(), 0, 0, 0, 1, 1, GL_RGBA, GL_FLOAT, zero);
    glTextureParameteri(black_.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(black_.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    NBODY_GL_CHECK_STATE("creating the renderer's textures");
}

std::string ParticleRenderer::reload_shaders() {
    try {
        ShaderProgram particles = ShaderProgram::load({"particles.vert", "particles.frag"});
        ShaderProgram glow = ShaderProgram::load({"fullscreen.vert", "glow.frag"});
        ShaderProgram glow_down = ShaderProgram::load({"fullscreen.vert", "glow_down.frag"});
        ShaderProgram tonemap = ShaderProgram::load({"fullscreen.vert", "tonemap.frag"});
        if (std::string error = splatter_.reload_shaders(); !error.empty()) return error;
        particles_ = std::move(particles);
        glow_ = std::move(glow);
        glow_down_ = std::move(glow_down);
        tonemap_ = std::move(tonemap);
        colour_map_loaded_ = -1;
        drawn_.reset();  // new programs may draw other light, or tone map it otherwise, from the same keys
        toned_.reset();
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

void ParticleRenderer::update_colour_map(const RenderSettings& settings) {
    constexpr int kStellarTable = 1000;  // beside the ColorMap values
    const bool stars = settings.colour_mode == ColourMode::Mass;
    const int wanted = stars ? kStellarTable : int(settings.colour_map);
    if (colour_map_loaded_ == wanted && colour_map_) return;
    const std::vector<glm::vec3> table = stars ? stellar_colour_table(256) : colormap_table(settings.colour_map, 256);
    // The CUDA deposit's copy holds what GL samples: the texels rounded to half precision.
    colour_table_.resize(table.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
        const glm::vec3 t = glm::unpackHalf4x16(glm::packHalf4x16(glm::vec4(table[i], 0.0f)));
        colour_table_[i] = {t.x, t.y, t.z};
    }
    colour_table_sent_ = false;
    GlTexture texture = create_texture(GL_TEXTURE_2D);
    glTextureStorage2D(texture.id(), 1, GL_RGB16F, 256, 1);
    glTextureSubImage2D(texture.id(), 0, 0, 0, 256, 1, GL_RGB, GL_FLOAT, table.data());
    glTextureParameteri(texture.id(), GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(texture.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    NBODY_GL_CHECK_STATE("creating the colour map texture");
    colour_map_ = std::move(texture);
    colour_map_loaded_ = wanted;
}

SpriteDrawing chosen_sprite_drawing(SpriteDrawing wanted, std::size_t bodies, bool software_renderer,
                                    bool cuda_preferred) {
    if (wanted != SpriteDrawing::Auto) return wanted;
    if (bodies < kComputeSpritesFromBodies || software_renderer) return SpriteDrawing::Points;
    return cuda_preferred ? SpriteDrawing::Cuda : SpriteDrawing::Compute;
}

const char* sprite_drawing_name(SpriteDrawing drawing) {
    switch (drawing) {
    case SpriteDrawing::Auto: return "auto";
    case SpriteDrawing::Points: return "points";
    case SpriteDrawing::Compute: return "compute";
    case SpriteDrawing::Cuda: return "cuda";
    }
    return "unknown";
}

float ParticleRenderer::sprite_intensity(const ParticleBuffers& particles, const OrbitCamera& camera,
                                         const RenderSettings& settings) const {
    if (particles.size() == 0) return 0.0f;
    float intensity = kBaseIntensity * settings.exposure * kReferenceCount / float(particles.size());
    if (settings.constant_brightness_zoom && camera.home().distance > 0) {
        // Sprites keep their pixel size when zooming while the system's image grows, so its
        // surface brightness would fall as 1/zoom^2; give the light back.
        const float zoom = float(camera.home().distance) / camera.distance();
        intensity *= std::clamp(zoom * zoom, 1e-3f, 1e4f);
    }
    return intensity;
}

// particle_sprite.glsl's uniforms. Exposure is applied here, on each sprite, not in the tone
// mapper: it then also scales the glow, and the tone mapper's exposure stays 1 (see draw()).
sprite::SpriteUniforms ParticleRenderer::sprite_uniforms(const ParticleBuffers& particles, const OrbitCamera& camera,
                                                         const RenderSettings& settings, float aspect, float scale,
                                                         float intensity) const {
    const double dt = particles.current_time() - particles.previous_time();
    const float speed_scale = settings.speed_scale > 0 ? settings.speed_scale : auto_speed_scale_;
    const auto f3 = [](const glm::vec3& v) { return sprite::F3{v.x, v.y, v.z}; };
    sprite::SpriteUniforms u;
    const glm::mat4 view = camera.view(), projection = camera.projection(aspect);
    std::copy_n(glm::value_ptr(view), 16, u.view);
    std::copy_n(glm::value_ptr(projection), 16, u.projection);
    u.point_size = settings.point_size * scale;
    u.reference_distance = settings.size_with_distance ? camera.distance() : 0.0f;
    u.min_size = kMinSpritePixels;
    u.intensity = intensity;
    u.colour_mode = int(settings.colour_mode);
    u.hide_halo = int(settings.hide_halo);
    u.halo_brightness = settings.halo_brightness;
    u.inv_dt = dt > 0 ? float(1.0 / dt) : 0.0f;
    u.inv_speed_scale = speed_scale > 0 ? 1.0f / speed_scale : 1.0f;
    u.solar_masses_per_unit = settings.solar_masses_per_unit;
    for (std::size_t k = 0; k < kGalaxyColours.size(); ++k) u.galaxy_colours[k] = f3(kGalaxyColours[k]);
    for (std::size_t k = 0; k < kComponentColours.size(); ++k) u.component_colours[k] = f3(kComponentColours[k]);
    u.plain_colour = f3(kPlainColour);
    u.variety = std::clamp(settings.variety, 0.0f, 1.0f);
    return u;
}

namespace {
void set_sprite_uniforms(const ShaderProgram& p, const sprite::SpriteUniforms& u) {
    static_assert(sizeof(sprite::F3) == sizeof(glm::vec3), "colour arrays are passed to GL as they are");
    p.set("u_view", glm::make_mat4(u.view));
    p.set("u_projection", glm::make_mat4(u.projection));
    p.set("u_point_size", u.point_size);
    p.set("u_reference_distance", u.reference_distance);
    p.set("u_min_size", u.min_size);
    p.set("u_intensity", u.intensity);
    p.set("u_colour_mode", u.colour_mode);
    p.set("u_hide_halo", u.hide_halo);
    p.set("u_halo_brightness", u.halo_brightness);
    p.set("u_inv_dt", u.inv_dt);
    p.set("u_inv_speed_scale", u.inv_speed_scale);
    p.set("u_solar_masses_per_unit", u.solar_masses_per_unit);
    p.set("u_colour_map", 0);
    p.set("u_galaxy_colours", reinterpret_cast<const glm::vec3*>(u.galaxy_colours), 8);
    p.set("u_component_colours", reinterpret_cast<const glm::vec3*>(u.component_colours), 5);
    p.set("u_plain_colour", glm::vec3(u.plain_colour.x, u.plain_colour.y, u.plain_colour.z));
    p.set("u_variety", u.variety);
}
}  // namespace

#if NBODY_HAVE_CUDA
CudaSplatDeposit* ParticleRenderer::cuda_deposit() {
    if (!cuda_deposit_ && !cuda_deposit_failed_) {
        try {
            cuda_deposit_ = std::make_unique<CudaSplatDeposit>();
            colour_table_sent_ = false;
        } catch (const std::exception& e) {
            cuda_deposit_failed_ = true;
            cuda_refused_ = std::string("no CUDA deposit: ") + e.what();
        }
    }
    return cuda_deposit_.get();
}
#endif

bool ParticleRenderer::cuda_deposit_usable(const ParticleBuffers& particles) {
#if NBODY_HAVE_CUDA
    if (!cuda_deposit()) return false;  // cuda_refused_ says why
    if (!particles.cuda_interop_enabled() || !particles.labels_registration()) {
        cuda_refused_ = "the particles' buffers are not registered with CUDA (the CUDA deposit draws what the cuda "
                        "backend publishes through CUDA-GL interop: --backend cuda)";
        return false;
    }
    cuda_refused_.clear();
    return true;
#else
    (void)particles;
    cuda_refused_ = "this build has no CUDA (NBODY_HAVE_CUDA is off)";
    return false;
#endif
}

void ParticleRenderer::splat(const ParticleBuffers& particles, const sprite::SpriteUniforms& uniforms, int width,
                             int height, bool by_cuda) {
    set_sprite_uniforms(splatter_.splat_program(), uniforms);
    set_sprite_uniforms(splatter_.large_program(), uniforms);
    glBindTextureUnit(0, colour_map_.id());
    splatter_.begin(particles.size(), width, height, kMinSpritePixels);
#if NBODY_HAVE_CUDA
    if (by_cuda) {
        if (!colour_table_sent_) cuda_deposit_->set_colour_table(colour_table_);
        colour_table_sent_ = true;
        cuda_deposit_->deposit(particles, splatter_, uniforms);
    } else {
        splatter_.deposit(particles);
    }
#else
    (void)by_cuda;
    splatter_.deposit(particles);
#endif
    splatter_.finish(particles, accumulation_.texture(), accumulation_.format());
}

// Every state a clear, a draw or a blit obeys: a scissor box or a colour mask left over from other
// drawing (a UI library, a test) would leave last frame's light, or uninitialised memory, in part
// of a target.
void ParticleRenderer::reset_draw_state() {
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_RASTERIZER_DISCARD);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
}

bool ParticleRenderer::same_light(const ParticleLayer& a, const ParticleLayer& b) {
    // Every field of the uniforms is compared below (colour_table is the CUDA deposit's, set on its
    // own copy): a field added to SpriteUniforms must be added here, or a frame would keep light
    // drawn with the old value.
    static_assert(sizeof(sprite::SpriteUniforms) == 85 * sizeof(float) + 4 + sizeof(const sprite::F3*),
                  "SpriteUniforms changed: compare the new field in same_light");
    const sprite::SpriteUniforms &u = a.uniforms, &v = b.uniforms;
    const auto same_f3 = [](const sprite::F3* x, const sprite::F3* y, int n) {
        for (int k = 0; k < n; ++k)
            if (x[k].x != y[k].x || x[k].y != y[k].y || x[k].z != y[k].z) return false;
        return true;
    };
    return a.positions == b.positions && a.width == b.width && a.height == b.height &&
           a.glow_levels == b.glow_levels && a.glow_first == b.glow_first && a.colour_map == b.colour_map &&
           a.drawing == b.drawing && a.format == b.format && a.trails == b.trails && std::equal(u.view, u.view + 16, v.view) &&
           std::equal(u.projection, u.projection + 16, v.projection) && u.point_size == v.point_size &&
           u.reference_distance == v.reference_distance && u.min_size == v.min_size && u.intensity == v.intensity &&
           u.colour_mode == v.colour_mode && u.hide_halo == v.hide_halo && u.halo_brightness == v.halo_brightness &&
           u.inv_dt == v.inv_dt && u.inv_speed_scale == v.inv_speed_scale &&
           u.solar_masses_per_unit == v.solar_masses_per_unit && u.variety == v.variety &&
           same_f3(u.galaxy_colours, v.galaxy_colours, 8) && same_f3(u.component_colours, v.component_colours, 5) &&
           same_f3(&u.plain_colour, &v.plain_colour, 1);
}

void ParticleRenderer::draw(const ParticleBuffers& particles, const OrbitCamera& camera,
                            const RenderSettings& settings, const DrawTarget& target, GpuFrameTimer* timer,
                            const TrailRenderer* trails) {
    // Below render scale 1 every pass up to the tone mapping draws a smaller frame (all sizes below
    // follow from it: sprites, glow), enlarged onto the target at the end.
    const int out_width = std::max(target.width, 1), out_height = std::max(target.height, 1);
    const int width = scaled_size(out_width, settings.render_scale);
    const int height = scaled_size(out_height, settings.render_scale);
    // Sizes are given for a 720-line frame: a taller one draws them proportionally wider (a HiDPI
    // window's framebuffer is taller by its pixel scale, so that is covered too).
    const float scale = float(height) / kReferenceHeight;
    const int glow = settings.glow > 0 ? glow_levels(height) : 0;
    last_sprite_drawing_ = chosen_sprite_drawing(settings.sprites, particles.size(), software_renderer_, cuda_preferred_);
    if (last_sprite_drawing_ != SpriteDrawing::Cuda)
        cuda_refused_.clear();
    else if (particles.size() > 0 && !cuda_deposit_usable(particles))
        last_sprite_drawing_ = SpriteDrawing::Compute;  // the same picture; cuda_sprites_refused() says why
    // The pyramid's finest level: 1 (half the frame), or 2 for a coarse glow (its first step reads
    // the frame with a 4x4 box: two passes and three quarters of the glow's pixels fewer).
    const int glow_first = glow > 2 && settings.coarse_glow ? 2 : 1;
    accumulation_.ensure(width, height, settings.float32_target ? GL_RGBA32F : GL_RGBA16F);
    update_colour_map(settings);

    const float aspect = float(width) / float(height);
    ParticleLayer layer;
    layer.positions = particles.generation();
    layer.uniforms = sprite_uniforms(particles, camera, settings, aspect, scale, sprite_intensity(particles, camera, settings));
    layer.width = width;
    layer.height = height;
    layer.glow_levels = glow;
    layer.glow_first = glow_first;
    layer.colour_map = colour_map_loaded_;
    layer.drawing = last_sprite_drawing_;
    layer.format = accumulation_.format();
    const bool trails_shown = particles.size() > 0 && trails && trails->active();
    layer.trails = trails_shown ? trails->version() : 0;
    reset_draw_state();
    const bool light_kept = settings.cache_particles && drawn_ && same_light(*drawn_, layer);
    if (light_kept) {
        ++particle_keeps_;
    } else {
        draw_light(particles, layer, timer, trails_shown ? trails : nullptr, settings);
        drawn_ = layer;
        ++particle_draws_;
    }

    ToneMapping tone;
    // Each pyramid level adds about the local mean brightness once: divide by their number so
    // that glow 1 adds about as much light again as the particles themselves. A coarse glow keeps
    // the divisor of the whole pyramid: its wider rings reach the dark sky, where the tone curve
    // does not compress them, and sharing the missing ring's light among them made the frame 13%
    // brighter than the full glow (4.9% with this divisor, 1.05 without the coarse glow; 640x360).
    tone.glow_strength = glow > 0 ? settings.glow / float(glow) : 0.0f;
    tone.background = settings.background;
    tone.width = width;
    tone.height = height;
    put_on_target(target, tone, light_kept, settings.cache_particles, glow, glow_first, timer);
}

// Pass 2: tone map into the 8-bit frame that pass 3 puts on the target (enlarged below render scale
// 1), or straight onto the target at scale 1 without the cache. A frame that kept the light and tone
// maps it as before keeps the tone-mapped frame too: on llvmpipe a tone mapping at 1280x720 costs
// ~40 ms and the copy ~10 (headless, two cores); on a GPU beside the steps every GL pass waits its
// turn with the CUDA work (run 144: 2.3 ms of tone mapping against 0.3).
void ParticleRenderer::put_on_target(const DrawTarget& target, const ToneMapping& tone, bool light_kept, bool cache,
                                     int glow, int glow_first, GpuFrameTimer* timer) {
    const int out_width = std::max(target.width, 1), out_height = std::max(target.height, 1);
    const bool scaled = tone.width != out_width || tone.height != out_height;
    const bool via_frame = scaled || cache;
    const bool tone_kept = via_frame && light_kept && toned_ && same_tone(*toned_, tone);
    if (!tone_kept) {
        const GpuStageScope timing(timer, GpuStage::Tonemap);
        if (via_frame) toned_frame_.ensure(tone.width, tone.height, GL_RGBA8);
        tone_map(via_frame ? toned_frame_.framebuffer() : target.framebuffer, tone, glow, glow_first);
        toned_ = via_frame ? std::optional<ToneMapping>(tone) : std::nullopt;
        ++tone_maps_;
    }
    if (!via_frame) return;

    // Pass 3: the tone-mapped frame onto the target: a copy at scale 1, else enlarged bilinear (no
    // blocks). The one pass at the target's size reads one 8-bit texture: no float formats, no glow
    // taps, no exp or sRGB encoding per output pixel (on llvmpipe at 1280x720 8-13 ms against the
    // 90-130 ms of a full-size tone mapping, two loaded cores).
    const GpuStageScope timing(timer, GpuStage::Upscale);
    glBlitNamedFramebuffer(toned_frame_.framebuffer(), target.framebuffer, 0, 0, tone.width, tone.height, 0, 0,
                           out_width, out_height, GL_COLOR_BUFFER_BIT, scaled ? GL_LINEAR : GL_NEAREST);
    NBODY_GL_CHECK_STATE("putting the tone-mapped frame on the target");
}

bool ParticleRenderer::same_tone(const ToneMapping& a, const ToneMapping& b) {
    return a.glow_strength == b.glow_strength && a.background == b.background && a.width == b.width &&
           a.height == b.height;
}

// The accumulation target and the glow pyramid's top level (`glow` levels from `glow_first`) tone
// mapped into `framebuffer` (the frame's size).
void ParticleRenderer::tone_map(GLuint framebuffer, const ToneMapping& tone, int glow, int glow_first) {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, tone.width, tone.height);
    const ShaderProgram& t = tonemap_;
    t.set("u_hdr", 0);
    t.set("u_glow_texture", 1);
    t.set("u_exposure", 1.0f);
    t.set("u_glow", tone.glow_strength);
    t.set("u_background", tone.background);
    glBindTextureUnit(0, accumulation_.texture());
    if (glow > 0) {
        const RenderTarget& top = glow_up_[std::size_t(glow_first)];
        t.set("u_glow_texel", glm::vec2(1.0f / float(top.width()), 1.0f / float(top.height())));
        glBindTextureUnit(1, top.texture());
    } else {
        t.set("u_glow_texel", glm::vec2(1.0f));
        glBindTextureUnit(1, black_.id());
    }
    glBindVertexArray(empty_vao_.id());
    t.use();
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindTextureUnit(0, 0);
    glBindTextureUnit(1, 0);
    NBODY_GL_CHECK_STATE("tone mapping");
}

// Pass 1 (every particle's light into the float target) and the glow pyramid built from it.
void ParticleRenderer::draw_light(const ParticleBuffers& particles, const ParticleLayer& layer, GpuFrameTimer* timer,
                                  const TrailRenderer* trails, const RenderSettings& settings) {
    const bool by_cuda = particles.size() > 0 && layer.drawing == SpriteDrawing::Cuda;
    const bool by_compute = particles.size() > 0 && (by_cuda || layer.drawing == SpriteDrawing::Compute);
    std::optional<GpuStageScope> timing(std::in_place, timer, GpuStage::Particles);
    glBindFramebuffer(GL_FRAMEBUFFER, accumulation_.framebuffer());
    glViewport(0, 0, layer.width, layer.height);
    const float clear[4] = {0, 0, 0, 0};
    if (!by_compute) glClearNamedFramebufferfv(accumulation_.framebuffer(), GL_COLOR, 0, clear);  // compute writes every pixel
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE);
    glEnable(GL_PROGRAM_POINT_SIZE);

    const sprite::SpriteUniforms& uniforms = layer.uniforms;
    if (by_compute) {
        splat(particles, uniforms, layer.width, layer.height, by_cuda);
        glEnable(GL_BLEND);  // the trails add their light over the particles'
    } else if (particles.size() > 0) {
        set_sprite_uniforms(particles_, uniforms);
        glBindTextureUnit(0, colour_map_.id());
        const GLuint vao = particle_vao_.id();
        glVertexArrayVertexBuffer(vao, 0, particles.current(), 0, sizeof(Vec4f));
        glVertexArrayVertexBuffer(vao, 1, particles.previous(), 0, sizeof(Vec4f));
        glVertexArrayVertexBuffer(vao, 2, particles.labels(), 0, sizeof(std::uint32_t));
        glBindVertexArray(vao);
        particles_.use();
        glDrawArrays(GL_POINTS, 0, GLsizei(particles.size()));
    }
    if (trails) {
        const glm::mat4 view_projection =
            glm::make_mat4(uniforms.projection) * glm::make_mat4(uniforms.view);
        trails->draw(particles, view_projection, settings, uniforms.intensity);
    }
    glDisable(GL_BLEND);
    glDisable(GL_PROGRAM_POINT_SIZE);
    NBODY_GL_CHECK_STATE("drawing particles");

    if (layer.glow_levels > 0) {
        timing.reset();
        timing.emplace(timer, GpuStage::Glow);
        build_glow(layer.width, layer.height, layer.glow_first, layer.glow_levels);
    }
}

// Down: the float target -> level `first` (1: half size) -> ... -> level `levels` (glow_down.frag).
// Up: from the smallest level, each level's own light plus the enlarged level below (glow.frag).
// The tone mapper reads up[first]. Levels are sized by halving with rounding up and read by uv, so
// odd sizes lose no row or column.
void ParticleRenderer::build_glow(int width, int height, int first, int levels) {
    const GLenum format = accumulation_.format();
    glow_down_levels_.resize(levels + 1);
    glow_up_.resize(levels + 1);
    auto level_size = [](int size, int level) { return std::max(1, (size + (1 << level) - 1) >> level); };
    for (int level = first; level <= levels; ++level) {
        glow_down_levels_[level].ensure(level_size(width, level), level_size(height, level), format);
        if (level < levels) glow_up_[level].ensure(level_size(width, level), level_size(height, level), format);
    }
    glBindVertexArray(empty_vao_.id());
    auto texel = [](int w, int h) { return glm::vec2(1.0f / float(w), 1.0f / float(h)); };

    const ShaderProgram& d = glow_down_;
    d.set("u_source", 0);
    d.use();
    for (int level = first; level <= levels; ++level) {
        // The first step reads the float target: at level 2 its four taps one texel off the
        // centre cover a 4x4 block, a plain box.
        const bool from_frame = level == first;
        const GLuint source = from_frame ? accumulation_.texture() : glow_down_levels_[level - 1].texture();
        d.set("u_source_texel", from_frame ? texel(width, height)
                                           : texel(glow_down_levels_[level - 1].width(),
                                                   glow_down_levels_[level - 1].height()));
        glBindTextureUnit(0, source);
        const RenderTarget& out = glow_down_levels_[level];
        glBindFramebuffer(GL_FRAMEBUFFER, out.framebuffer());
        glViewport(0, 0, out.width(), out.height());
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }

    const ShaderProgram& g = glow_;
    g.set("u_down", 0);
    g.set("u_lower", 1);
    g.use();
    for (int level = levels - 1; level >= first; --level) {
        const RenderTarget& lower = level + 1 == levels ? glow_down_levels_[levels] : glow_up_[level + 1];
        const RenderTarget& out = glow_up_[level];
        g.set("u_lower_texel", texel(lower.width(), lower.height()));
        glBindTextureUnit(0, glow_down_levels_[level].texture());
        glBindTextureUnit(1, lower.texture());
        glBindFramebuffer(GL_FRAMEBUFFER, out.framebuffer());
        glViewport(0, 0, out.width(), out.height());
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    NBODY_GL_CHECK_STATE("building the glow");
}

}  // namespace nbody::render
