#version 450 core
// Sprites without rasterising them (particle_splatter.hpp): each particle's light is added, as
// fixed-point integers, into the pixels around its centre in one of a few size layers, which a
// later pass blurs with that layer's Gaussian (splat_resolve.comp). A particle
// whose width falls between two layers gives each its share, so sizes change smoothly. Sprites
// wider than the widest layer are listed and drawn whole by splat_large.comp.
// Integer sums are exact and do not depend on the order threads run: frames are reproducible.
#include "particle_sprite.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Current { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Previous { vec4 previous[]; };
layout(std430, binding = 2) readonly buffer Labels { uint labels[]; };
layout(std430, binding = 3) buffer Light { uint light[]; };       // [plane][pixel]
layout(std430, binding = 4) buffer Saturated { uint saturated[]; };  // one bit per plane pixel
layout(std430, binding = 5) buffer Large {
    uint large_count;
    uint large_y, large_z;  // unused: room for an indirect dispatch
    uint large_index[];
};

uniform int u_bodies;
uniform ivec2 u_size;           // pixels
uniform int u_layers;           // size layers; plane of (layer, channel) = layer * 3 + channel
uniform float u_layer0_inv_width;  // 1 / the width of layer 0 (layer k is twice layer k - 1)
uniform float u_units;          // fixed-point units per unit of light
uniform uint u_large_capacity;

// Each sprite's light at its centre times this is its total light (its profile integrated
// over a disk of the sprite's width, in pixels): 0.7268 (width / 2)^2.
const float kProfileArea = 0.181694;

// The arithmetic is written as sprite_arithmetic.hpp's (the CUDA deposit's) is, on precise
// values: particle_sprite.glsl says why.
void add_light(int plane, ivec2 pixel, float amount, uint dither) {
    if (amount <= 0.0 || any(lessThan(pixel, ivec2(0))) || any(greaterThanEqual(pixel, u_size))) return;
    // Rounding by a fixed per-particle dither keeps the sum unbiased for light finer than one
    // unit (a faint haze of many particles) while every frame stays reproducible.
    precise float units = min(amount * u_units + float(dither & 0xffffu) * (1.0 / 65536.0), 4.0e9);
    uint add = uint(units);
    if (add == 0u) return;
    uint at = uint(plane) * uint(u_size.x * u_size.y) + uint(pixel.y * u_size.x + pixel.x);
    uint before = atomicAdd(light[at], add);
    if (before > 0xffffffffu - add) atomicOr(saturated[at >> 5], 1u << (at & 31u));  // wrapped
}

void add_to_layer(int layer, vec2 centre, vec3 total, float share, uint dither) {
    precise vec2 corner = floor(centre - 0.5);
    precise vec2 f = centre - 0.5 - corner;
    ivec2 p = ivec2(corner);
    precise vec4 w = vec4((1.0 - f.x) * (1.0 - f.y), f.x * (1.0 - f.y), (1.0 - f.x) * f.y, f.x * f.y) * share;
    for (int c = 0; c < 3; ++c) {
        int plane = layer * 3 + c;
        precise vec4 amount = total[c] * w;
        add_light(plane, p, amount.x, dither);
        add_light(plane, p + ivec2(1, 0), amount.y, dither >> 4);
        add_light(plane, p + ivec2(0, 1), amount.z, dither >> 8);
        add_light(plane, p + ivec2(1, 1), amount.w, dither >> 12);
    }
}

void main() {
    // Groups in rows of at most 65,535 (the least every GL must allow in x): 16M bodies need more.
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i >= uint(u_bodies)) return;
    Sprite s = particle_sprite(positions[i], previous[i], labels[i], i);
    if (!s.visible || s.clip.w <= 0.0) return;
    precise vec3 ndc = s.clip.xyz * (1.0 / s.clip.w);
    if (any(greaterThan(abs(ndc), vec3(1.0)))) return;  // GL drops a point whose centre is outside
    precise vec2 centre = (ndc.xy * 0.5 + 0.5) * vec2(u_size);  // pixel centres at +0.5, as GL's
    precise float level = log2(s.width * u_layer0_inv_width);
    precise vec3 total = s.light * (kProfileArea * s.width * s.width);
    uint dither = hash(i ^ 0x9e3779b9u);
    if (level > float(u_layers - 1) + 1e-4) {
        uint slot = atomicAdd(large_count, 1u);
        if (slot < u_large_capacity) {
            large_index[slot] = i;
            return;
        }
        level = float(u_layers - 1);  // the list is full: the widest layer is the nearest look
    }
    int below = clamp(int(floor(level)), 0, u_layers - 1);
    precise float up = clamp(level - float(below), 0.0, 1.0);
    precise float stay = 1.0 - up;
    add_to_layer(below, centre, total, stay, dither);
    if (up > 0.0 && below + 1 < u_layers) add_to_layer(below + 1, centre, total, up, dither >> 16);
}
