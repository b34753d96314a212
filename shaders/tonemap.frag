#version 450 core
// Float accumulation target -> display. Exposure, a glow built from the target's mipmaps,
// per-channel exponential tone mapping (bright cores saturate to white the way film does,
// keeping their hue at the edges), sRGB encoding and a dither against banding.

in vec2 v_uv;
out vec4 o_colour;

uniform sampler2D u_hdr;
uniform float u_exposure;
uniform float u_glow;        // 0: no glow
uniform int u_glow_levels;   // mip levels 1..u_glow_levels contribute
uniform vec3 u_background;   // linear RGB
uniform vec2 u_texel;        // 1 / target size

// A tent filter over four bilinear taps at half a texel of mip level `lod`: smooths the
// blockiness of box-filtered mipmaps magnified many times.
vec3 blurred(float lod) {
    vec2 t = u_texel * exp2(lod) * 0.75;
    return 0.25 * (textureLod(u_hdr, v_uv + vec2(-t.x, -t.y), lod).rgb +
                   textureLod(u_hdr, v_uv + vec2( t.x, -t.y), lod).rgb +
                   textureLod(u_hdr, v_uv + vec2(-t.x,  t.y), lod).rgb +
                   textureLod(u_hdr, v_uv + vec2( t.x,  t.y), lod).rgb);
}

vec3 linear_to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

// Interleaved gradient noise (Jimenez 2014): cheap, no texture, no visible pattern.
float dither_noise(vec2 p) { return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715)))); }

void main() {
    vec3 hdr = texelFetch(u_hdr, ivec2(gl_FragCoord.xy), 0).rgb;
    vec3 glow = vec3(0.0);
    if (u_glow > 0.0) {
        float weight = 1.0, total = 0.0;
        for (int level = 1; level <= u_glow_levels; ++level) {
            glow += weight * blurred(float(level));
            total += weight;
            weight *= 0.8;
        }
        glow /= total;
    }
    vec3 c = (hdr + u_glow * glow) * u_exposure;
    vec3 mapped = vec3(1.0) - exp(-c);
    mapped = u_background + mapped * (vec3(1.0) - u_background);
    vec3 srgb = linear_to_srgb(mapped);
    srgb += (dither_noise(gl_FragCoord.xy) - 0.5) / 255.0;
    o_colour = vec4(srgb, 1.0);
}
