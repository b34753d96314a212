#version 450 core
// The vertical half of each layer's blur (splat_blur.comp did x), the layers and the unblurred
// planes summed: the light of every particle at this pixel, stored into the float target.
// A compute pass, not a full-screen fragment pass: on an H100 fragment work runs on the few
// graphics-capable units, where this pass's ~70 loads a pixel took 9.4 ms at 1080p (device run 96).

layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 6) readonly buffer Blurred { float blurred[]; };
layout(rgba32f, binding = 0) writeonly uniform image2D u_target;

const int kMaxLayers = 4;
const int kMaxRadius = 8;

uniform ivec2 u_size;
uniform int u_layers;
uniform int u_radius[kMaxLayers];
uniform float u_weights[kMaxLayers * (kMaxRadius + 1)];

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(pixel, u_size))) return;
    uint pixels = uint(u_size.x * u_size.y);
    vec3 sum = vec3(0.0);
    for (int layer = 0; layer <= u_layers; ++layer) {
        int radius = layer < u_layers ? u_radius[layer] : 0;
        for (int t = -radius; t <= radius; ++t) {
            int y = pixel.y + t;
            if (y < 0 || y >= u_size.y) continue;
            float w = radius == 0 ? 1.0 : u_weights[layer * (kMaxRadius + 1) + abs(t)];
            uint at = uint(y * u_size.x + pixel.x);
            for (int c = 0; c < 3; ++c) sum[c] += w * blurred[uint(layer * 3 + c) * pixels + at];
        }
    }
    imageStore(u_target, pixel, vec4(sum, 0.0));
}
