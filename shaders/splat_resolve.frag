#version 450 core
// The vertical half of each layer's blur (splat_blur.comp did x), the layers and the unblurred
// planes summed: the light of every particle at this pixel, written into the float target.

layout(std430, binding = 6) readonly buffer Blurred { float blurred[]; };

const int kMaxLayers = 4;
const int kMaxRadius = 8;

uniform ivec2 u_size;
uniform int u_layers;
uniform int u_radius[kMaxLayers];
uniform float u_weights[kMaxLayers * (kMaxRadius + 1)];

out vec4 o_colour;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
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
    o_colour = vec4(sum, 0.0);
}
