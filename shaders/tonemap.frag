#version 450 core
// Float accumulation target -> display. Exposure, a glow (the pyramid glow.frag builds),
// per-channel exponential tone mapping (bright cores saturate to white the way film does,
// keeping their hue at the edges), sRGB encoding and a dither against banding.

in vec2 v_uv;
out vec4 o_colour;

uniform sampler2D u_hdr;
uniform sampler2D u_glow_texture;  // top of the glow pyramid (half resolution), see glow.frag
uniform vec2 u_glow_texel;         // one texel of it, in uv
uniform float u_exposure;
uniform float u_glow;              // 0: no glow
uniform vec3 u_background;         // linear RGB

// The glow's 3x3 tent upsample in four bilinear taps (see glow.frag): this pass touches every
// output pixel, and its texture fetches are most of its cost.
vec3 tent(sampler2D t, vec2 uv, vec2 d) {
    vec2 o = 0.70710678 * d;
    return 0.25 * (texture(t, uv + o).rgb + texture(t, uv - o).rgb + texture(t, uv + vec2(o.x, -o.y)).rgb +
                   texture(t, uv + vec2(-o.x, o.y)).rgb);
}

vec3 linear_to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

// Interleaved gradient noise (Jimenez 2014): cheap, no texture, no visible pattern.
float dither_noise(vec2 p) { return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715)))); }

void main() {
    vec3 hdr = texelFetch(u_hdr, ivec2(gl_FragCoord.xy), 0).rgb;
    vec3 glow = u_glow > 0.0 ? tent(u_glow_texture, v_uv, u_glow_texel) : vec3(0.0);
    vec3 c = (hdr + u_glow * glow) * u_exposure;
    vec3 mapped = vec3(1.0) - exp(-c);
    mapped = u_background + mapped * (vec3(1.0) - u_background);
    vec3 srgb = linear_to_srgb(mapped);
    srgb += (dither_noise(gl_FragCoord.xy) - 0.5) / 255.0;
    o_colour = vec4(srgb, 1.0);
}
