#version 450 core
// splat.comp's integer planes -> the float target: each size layer blurred with its sprite's
// Gaussian, the unblurred planes (wide sprites) added, the sum stored into the target image.
// One 16x16 tile a workgroup, one layer at a time: the tile and its apron are read from the
// planes once into shared memory and blurred there along x, then along y. Each plane pixel is
// then read from memory ~(1 + 2R/16)^2 times instead of 2R + 1 times along each axis, and no
// float copy of the planes is written and read back (device run 97: the two-pass form with its
// float planes cost ~4.3 ms a frame at 1080p whatever N).
// A plane pixel whose sum wrapped (splat.comp's saturated bit) reads as the largest sum.

layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 3) readonly buffer Light { uint light[]; };
layout(std430, binding = 4) readonly buffer Saturated { uint saturated[]; };
// The target's format (an image is declared with it): rgba16f unless the loader says otherwise.
#ifndef TARGET_FORMAT
#define TARGET_FORMAT rgba16f
#endif
layout(TARGET_FORMAT, binding = 0) writeonly uniform image2D u_target;

const int kTile = 16;
const int kMaxLayers = 4;
const int kMaxRadius = 8;
const int kSpan = kTile + 2 * kMaxRadius;

uniform ivec2 u_size;
uniform int u_layers;
uniform float u_units;
uniform int u_radius[kMaxLayers];
uniform float u_weights[kMaxLayers * (kMaxRadius + 1)];  // layer k: centre, 1 off, 2 off, ...

shared vec3 tile[kSpan][kSpan];      // [y][x], the apron included
shared vec3 across[kSpan][kTile];    // blurred along x: every row of the apron, the tile's columns

vec3 read_light(int layer, ivec2 p) {
    if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, u_size))) return vec3(0.0);
    uint pixels = uint(u_size.x * u_size.y);
    uint pixel = uint(p.y * u_size.x + p.x);
    vec3 c;
    for (int k = 0; k < 3; ++k) {
        uint at = uint(layer * 3 + k) * pixels + pixel;
        bool wrapped = (saturated[at >> 5] & (1u << (at & 31u))) != 0u;
        c[k] = wrapped ? 4294967295.0 / u_units : float(light[at]) / u_units;
    }
    return c;
}

float weight(int layer, int offset) { return u_weights[layer * (kMaxRadius + 1) + abs(offset)]; }

// This layer's blurred light at the invocation's pixel. Called by the whole workgroup.
vec3 blurred_layer(int layer, int radius, ivec2 origin) {
    ivec2 local = ivec2(gl_LocalInvocationID.xy);
    int span = kTile + 2 * radius;
    for (int y = local.y; y < span; y += kTile)
        for (int x = local.x; x < span; x += kTile) tile[y][x] = read_light(layer, origin - radius + ivec2(x, y));
    barrier();
    for (int y = local.y; y < span; y += kTile) {
        vec3 sum = vec3(0.0);
        for (int t = -radius; t <= radius; ++t) sum += weight(layer, t) * tile[y][local.x + radius + t];
        across[y][local.x] = sum;
    }
    barrier();
    vec3 sum = vec3(0.0);
    for (int t = -radius; t <= radius; ++t) sum += weight(layer, t) * across[local.y + radius + t][local.x];
    barrier();  // the next layer overwrites the shared arrays
    return sum;
}

void main() {
    ivec2 origin = ivec2(gl_WorkGroupID.xy) * kTile;
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    vec3 sum = vec3(0.0);
    for (int layer = 0; layer < u_layers; ++layer) sum += blurred_layer(layer, u_radius[layer], origin);
    sum += read_light(u_layers, pixel);  // wide sprites, drawn whole
    if (all(lessThan(pixel, u_size))) imageStore(u_target, pixel, vec4(sum, 0.0));
}
