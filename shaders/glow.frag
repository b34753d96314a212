#version 450 core
// One level of the glow pyramid, built from the smallest level up (the "progressive upsample"
// bloom of Jimenez, SIGGRAPH 2014): this level's light from the accumulation target's mipmap,
// plus the level below, enlarged with a 3x3 tent filter. Each level adds a wider, softer ring,
// and the tent hides the blocks a plain mipmap lookup would show.

in vec2 v_uv;
out vec4 o_colour;

uniform sampler2D u_accum;      // the float target, with mipmaps
uniform float u_accum_level;    // its mip level matching this glow level
uniform sampler2D u_lower;      // the next smaller glow level (or the target's own next mip)
uniform float u_lower_lod;      // lod to read u_lower at (0 for a glow level)
uniform vec2 u_lower_texel;     // one texel of u_lower at that lod, in uv

// A 3x3 tent (1 2 1 / 2 4 2 / 1 2 1, /16) in four bilinear taps instead of nine: each tap at a
// diagonal offset of sqrt(1/2) texel averages a 2x2 neighbourhood, and the four together have
// the tent's spread (variance 2/3 texel^2 per axis), so the glow keeps its width at less than
// half the texture fetches.
vec3 tent(sampler2D t, vec2 uv, vec2 d, float lod) {
    vec2 o = 0.70710678 * d;
    return 0.25 * (textureLod(t, uv + o, lod).rgb + textureLod(t, uv - o, lod).rgb +
                   textureLod(t, uv + vec2(o.x, -o.y), lod).rgb + textureLod(t, uv + vec2(-o.x, o.y), lod).rgb);
}

void main() {
    vec3 here = textureLod(u_accum, v_uv, u_accum_level).rgb;
    o_colour = vec4(here + tent(u_lower, v_uv, u_lower_texel, u_lower_lod), 1.0);
}
