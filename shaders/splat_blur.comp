#version 450 core
// splat.comp's integer planes -> float planes, each size layer blurred along x with its
// Gaussian (the vertical half is splat_resolve.comp). The unblurred plane set is copied.
// A plane pixel whose sum wrapped (splat.comp's saturated bit) reads as the largest sum.

layout(local_size_x = 256) in;

layout(std430, binding = 3) readonly buffer Light { uint light[]; };
layout(std430, binding = 4) readonly buffer Saturated { uint saturated[]; };
layout(std430, binding = 6) writeonly buffer Blurred { float blurred[]; };

const int kMaxLayers = 4;
const int kMaxRadius = 8;

uniform ivec2 u_size;
uniform int u_layers;
uniform float u_units;
uniform int u_radius[kMaxLayers];
uniform float u_weights[kMaxLayers * (kMaxRadius + 1)];  // layer k: centre, 1 off, 2 off, ...

float read_light(uint at) {
    if ((saturated[at >> 5] & (1u << (at & 31u))) != 0u) return 4294967295.0 / u_units;
    return float(light[at]) / u_units;
}

void main() {
    uint pixels = uint(u_size.x * u_size.y);
    int x = int(gl_GlobalInvocationID.x);
    if (x >= u_size.x) return;
    uint row = gl_GlobalInvocationID.y * uint(u_size.x);
    uint p = row + uint(x);
    for (int layer = 0; layer <= u_layers; ++layer) {
        int radius = layer < u_layers ? u_radius[layer] : 0;
        for (int c = 0; c < 3; ++c) {
            uint plane = uint(layer * 3 + c) * pixels;
            float sum = 0.0;
            for (int t = -radius; t <= radius; ++t) {
                int xt = x + t;
                if (xt < 0 || xt >= u_size.x) continue;
                float w = radius == 0 ? 1.0 : u_weights[layer * (kMaxRadius + 1) + abs(t)];
                sum += w * read_light(plane + row + uint(xt));
            }
            blurred[plane + p] = sum;
        }
    }
}
