#pragma once
// One particle's sprite (its width and light) and how splat.comp shares its light out among the
// size layers: the C++ copy of shaders/particle_sprite.glsl and splat.comp's arithmetic, for the
// CUDA deposit (cuda_splat.cu, `--sprites cuda`). Under nvcc the functions are
// __host__ __device__; the host compiler sees plain inline functions (the renderer fills
// SpriteUniforms from the same struct it sets the GL uniforms from).
//
// Why two copies: GLSL and CUDA C++ share no language a file of both could be written in (GLSL
// has no pointers, references or namespaces, its uniforms are globals, C++ has no swizzles), and
// the GL programs must stay (points, the compute deposit where there is no CUDA). So the copies
// are written operation for operation alike, and the test
// CudaSprites.DepositGivesTheComputeDepositsSumsBitForBit holds them to the same bits.
//
// What makes the same bits possible: integer sums do not depend on order, but each add is a
// float rounded down to an integer, so every float before it must round the same way in both
// compilers. The GLSL side computes on `precise` values (no multiply fused into an add, no
// reordering: IEEE +, -, * as written); the CUDA side is compiled with --fmad=false. Divisions
// are written as a * (1 / b) and log2 is log2: on NVIDIA both GLSL's and these approximations
// are the one special-function instruction (MUFU.RCP, MUFU.LG2), here called by PTX. The colour
// maps (colour by speed and by mass) are filtered by hand here and by the texture unit in GL,
// whose weights have fewer bits: those modes agree to within the filter, not to the bit.

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define NBODY_SPRITE_HD __host__ __device__ __forceinline__
#else
#define NBODY_SPRITE_HD inline
#endif

namespace nbody::render::sprite {

struct F3 {
    float x = 0, y = 0, z = 0;
};
struct F4 {
    float x = 0, y = 0, z = 0, w = 0;
};

inline constexpr std::uint32_t kBulge = 2u;
inline constexpr std::uint32_t kHalo = 3u;
inline constexpr float kMaxSpritePixels = 64.0f;
// Each sprite's light at its centre times this is its total light (its profile integrated over a
// disk of the sprite's width, in pixels): 0.7268 (width / 2)^2.
inline constexpr float kProfileArea = 0.181694f;
inline constexpr int kColourTable = 256;  // texels of the colour map (particle_renderer.cpp)

// particle_sprite.glsl's uniforms (the matrices column-major, as glm and GL keep them) and
// splat.comp's.
struct SpriteUniforms {
    float view[16] = {}, projection[16] = {};
    float point_size = 0, reference_distance = 0, min_size = 0, intensity = 0;
    int colour_mode = 0, hide_halo = 0;
    float halo_brightness = 0, inv_dt = 0, inv_speed_scale = 0, solar_masses_per_unit = 0;
    F3 galaxy_colours[8];
    F3 component_colours[5];
    F3 plain_colour;
    float variety = 0;
    // Colour by speed (2) and by mass (4): the map's texels as GL holds them (RGB16F, rounded to
    // half precision), kColourTable of them; device memory for the kernel.
    const F3* colour_table = nullptr;
};

struct SplatUniforms {
    int width = 0, height = 0;  // pixels
    int layers = 0;             // size layers; plane of (layer, channel) = layer * 3 + channel
    float layer0_inv_width = 0;  // 1 / the width of layer 0 (layer k is twice layer k - 1), from the host
    float units = 0;            // fixed-point units per unit of light
    std::uint32_t large_capacity = 0;
};

// GLSL's 1.0 / x and log2(x) on NVIDIA: the special-function unit's approximations.
NBODY_SPRITE_HD float rcp(float x) {
#if defined(__CUDA_ARCH__)
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
#else
    return 1.0f / x;
#endif
}
NBODY_SPRITE_HD float lg2(float x) {
#if defined(__CUDA_ARCH__)
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
#else
    return std::log2(x);
#endif
}
NBODY_SPRITE_HD float ex2(float x) {
#if defined(__CUDA_ARCH__)
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
#else
    return std::exp2(x);
#endif
}
NBODY_SPRITE_HD float fmin_(float a, float b) { return b < a ? b : a; }
NBODY_SPRITE_HD float fmax_(float a, float b) { return a < b ? b : a; }
NBODY_SPRITE_HD float clampf(float x, float lo, float hi) { return fmin_(fmax_(x, lo), hi); }
NBODY_SPRITE_HD F3 mul(F3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
NBODY_SPRITE_HD F3 mul(F3 a, F3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
NBODY_SPRITE_HD F3 add(F3 a, F3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
// particle_sprite.glsl's lerp: a (1 - t) + b t, as written (GLSL's mix leaves the form open).
NBODY_SPRITE_HD F3 lerp(F3 a, F3 b, float t) { return add(mul(a, 1.0f - t), mul(b, t)); }

// m v, summed column by column as particle_sprite.glsl's transform() does.
NBODY_SPRITE_HD F4 transform(const float* m, F4 v) {
    F4 r{m[0] * v.x, m[1] * v.x, m[2] * v.x, m[3] * v.x};
    r = {r.x + m[4] * v.y, r.y + m[5] * v.y, r.z + m[6] * v.y, r.w + m[7] * v.y};
    r = {r.x + m[8] * v.z, r.y + m[9] * v.z, r.z + m[10] * v.z, r.w + m[11] * v.z};
    return {r.x + m[12] * v.w, r.y + m[13] * v.w, r.z + m[14] * v.w, r.w + m[15] * v.w};
}

// Integer hash (Wellons' lowbias32): a fixed pseudo-random value per particle index.
NBODY_SPRITE_HD std::uint32_t hash(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// particle_sprite.glsl's variation(): a fixed brightness and tint per particle, mean 1.
NBODY_SPRITE_HD F3 variation(const SpriteUniforms& u, std::uint32_t index) {
    const std::uint32_t h = hash(index);
    const float u1 = float(h & 0xffffu) * (1.0f / 65535.0f);
    const float u2 = float(h >> 16) * (1.0f / 65535.0f);
    const float brightness = 0.45f + 1.65f * u1 * u1;
    const F3 tint = lerp(F3{1.25f, 0.92f, 0.72f}, F3{0.78f, 0.92f, 1.25f}, u2);
    return lerp(F3{1.0f, 1.0f, 1.0f}, mul(tint, brightness), u.variety);
}

NBODY_SPRITE_HD float stellar_mass(const SpriteUniforms& u, float mass) {
    return fmax_(mass * u.solar_masses_per_unit, 1e-30f);
}
// ln(x / 0.08) / ln(100 / 0.08) = log2(x / 0.08) / log2(1250).
NBODY_SPRITE_HD float stellar_table_position(const SpriteUniforms& u, float mass) {
    return clampf(lg2(stellar_mass(u, mass) * (1.0f / 0.08f)) * (1.0f / 10.2877124f), 0.0f, 1.0f);
}
NBODY_SPRITE_HD float stellar_size(const SpriteUniforms& u, float mass) {
    return clampf(ex2(lg2(stellar_mass(u, mass)) * (1.0f / 3.0f)), 0.6f, 3.0f);
}

// textureLod of the colour map at `s` (linear filtering, clamped to the edge), by hand.
NBODY_SPRITE_HD F3 colour_map(const SpriteUniforms& u, float s) {
    if (!u.colour_table) return {};
    const float x = s * float(kColourTable) - 0.5f;
#if defined(__CUDA_ARCH__)
    const float below = floorf(x);
#else
    const float below = std::floor(x);
#endif
    const float a = x - below;
    const int i0 = int(below);
    const auto at = [&u](int i) { return u.colour_table[i < 0 ? 0 : (i >= kColourTable ? kColourTable - 1 : i)]; };
    return lerp(at(i0), at(i0 + 1), a);
}

NBODY_SPRITE_HD F3 particle_colour(const SpriteUniforms& u, F4 position, F4 previous, std::uint32_t galaxy,
                                   std::uint32_t component) {
    if (u.colour_mode == 4) return colour_map(u, stellar_table_position(u, position.w));
    if (u.colour_mode == 2 && u.inv_dt > 0.0f) {
        const float dx = position.x - previous.x, dy = position.y - previous.y, dz = position.z - previous.z;
#if defined(__CUDA_ARCH__)
        const float length = sqrtf(dx * dx + dy * dy + dz * dz);
#else
        const float length = std::sqrt(dx * dx + dy * dy + dz * dz);
#endif
        const float t = clampf(length * u.inv_dt * u.inv_speed_scale, 0.0f, 1.0f);
        return colour_map(u, 0.12f + 0.88f * t);
    }
    if (u.colour_mode == 0) {
        const F3 c = u.galaxy_colours[galaxy & 7u];
        return component == kBulge ? lerp(c, F3{1.0f, 0.85f, 0.65f}, 0.45f) : c;
    }
    if (u.colour_mode == 1) return u.component_colours[component < 4u ? component : 4u];
    return u.plain_colour;
}

struct Sprite {
    F4 clip;       // clip-space centre
    float width;   // drawn diameter, physical pixels
    F3 light;      // at the centre
    bool visible;
};

// particle_sprite.glsl's particle_sprite().
NBODY_SPRITE_HD Sprite particle_sprite(const SpriteUniforms& u, F4 position, F4 previous, std::uint32_t label,
                                       std::uint32_t index) {
    Sprite s;
    const std::uint32_t galaxy = label & 0xffffu;
    const std::uint32_t component = label >> 16;
    const F4 eye = transform(u.view, F4{position.x, position.y, position.z, 1.0f});
    s.clip = transform(u.projection, eye);
    s.visible = !(u.hide_halo != 0 && component == kHalo);
    const float dist = fmax_(-eye.z, 1e-6f);
    const float star = u.colour_mode == 4 ? stellar_size(u, position.w) : 1.0f;
    const float size =
        star * (u.reference_distance > 0.0f ? u.point_size * u.reference_distance * rcp(dist) : u.point_size);
    s.width = clampf(size, u.min_size, kMaxSpritePixels);
    const float dim = size < s.width ? size * size * rcp(s.width * s.width)
                                     : u.point_size * rcp(fmax_(s.width, u.point_size));
    const float halo = component == kHalo ? u.halo_brightness : 1.0f;
    F3 colour = particle_colour(u, position, previous, galaxy, component);
    if (u.colour_mode != 2 && u.colour_mode != 4) colour = mul(colour, variation(u, index));
    s.light = mul(colour, u.intensity * dim * halo * star * star);
    return s;
}

// Where splat.comp puts one sprite: its centre in pixels, its total light, the layer below its
// width and the share the layer above gets; `large`: wider than the widest layer (listed and
// drawn whole instead). `drawn` false: nothing to add (hidden, behind the camera, centre off
// screen), as GL drops such a point.
struct Deposit {
    bool drawn = false, large = false;
    float centre_x = 0, centre_y = 0;
    F3 total;
    float level = 0;
    std::uint32_t dither = 0;
};

NBODY_SPRITE_HD Deposit plan_deposit(const Sprite& s, const SplatUniforms& u, std::uint32_t index) {
    Deposit d;
    if (!s.visible || s.clip.w <= 0.0f) return d;
    const float inv_w = rcp(s.clip.w);
    const float nx = s.clip.x * inv_w, ny = s.clip.y * inv_w, nz = s.clip.z * inv_w;
    if (fmax_(fmax_(nx < 0 ? -nx : nx, ny < 0 ? -ny : ny), nz < 0 ? -nz : nz) > 1.0f) return d;
    d.drawn = true;
    d.centre_x = (nx * 0.5f + 0.5f) * float(u.width);  // pixel centres at +0.5, as GL's
    d.centre_y = (ny * 0.5f + 0.5f) * float(u.height);
    d.level = lg2(s.width * u.layer0_inv_width);
    d.total = mul(s.light, kProfileArea * s.width * s.width);
    d.dither = hash(index ^ 0x9e3779b9u);
    d.large = d.level > float(u.layers - 1) + 1e-4f;
    return d;
}

// The fixed-point units `amount` of light adds (0: none); the dither rounds finer light without bias.
NBODY_SPRITE_HD std::uint32_t light_units(float amount, float units, std::uint32_t dither) {
    if (amount <= 0.0f) return 0;
    return std::uint32_t(fmin_(amount * units + float(dither & 0xffffu) * (1.0f / 65536.0f), 4.0e9f));
}

}  // namespace nbody::render::sprite
