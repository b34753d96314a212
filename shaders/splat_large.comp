#version 450 core
// Sprites wider than splat.comp's widest layer, each drawn whole by one workgroup: every pixel
// of its square gets the same profile a GL point sprite gives it (sprite_profile), in the
// unblurred plane set after the layers. A fixed number of groups walk the list, so an empty
// list costs one read per group.
#include "particle_sprite.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Current { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Previous { vec4 previous[]; };
layout(std430, binding = 2) readonly buffer Labels { uint labels[]; };
layout(std430, binding = 3) buffer Light { uint light[]; };
layout(std430, binding = 4) buffer Saturated { uint saturated[]; };
layout(std430, binding = 5) readonly buffer Large {
    uint large_count;
    uint large_y, large_z;
    uint large_index[];
};

uniform ivec2 u_size;
uniform int u_layers;  // the unblurred planes are u_layers * 3 .. + 2
uniform float u_units;
uniform uint u_large_capacity;

void add_light(int plane, ivec2 pixel, float amount) {
    uint add = uint(min(amount * u_units + 0.5, 4.0e9));
    if (add == 0u) return;
    uint at = uint(plane) * uint(u_size.x * u_size.y) + uint(pixel.y * u_size.x + pixel.x);
    uint before = atomicAdd(light[at], add);
    if (before > 0xffffffffu - add) atomicOr(saturated[at >> 5], 1u << (at & 31u));
}

void draw_sprite(uint i) {
    Sprite s = particle_sprite(positions[i], previous[i], labels[i], i);
    vec2 centre = (s.clip.xy / s.clip.w * 0.5 + 0.5) * vec2(u_size);
    float radius = 0.5 * s.width;
    ivec2 first = max(ivec2(floor(centre - radius)), ivec2(0));
    ivec2 last = min(ivec2(ceil(centre + radius)), u_size - 1);
    for (int y = first.y + int(gl_LocalInvocationID.y); y <= last.y; y += 16)
        for (int x = first.x + int(gl_LocalInvocationID.x); x <= last.x; x += 16) {
            vec2 d = (vec2(x, y) + 0.5 - centre) / radius;
            float g = sprite_profile(dot(d, d));
            if (g <= 0.0) continue;
            for (int c = 0; c < 3; ++c) add_light(u_layers * 3 + c, ivec2(x, y), s.light[c] * g);
        }
}

void main() {
    uint listed = min(large_count, u_large_capacity);
    for (uint k = gl_WorkGroupID.x; k < listed; k += gl_NumWorkGroups.x) draw_sprite(large_index[k]);
}
