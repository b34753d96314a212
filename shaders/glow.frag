#version 450 core
// One level of the glow pyramid on the way up, built from the smallest level up (the
// "progressive upsample" bloom of Jimenez, SIGGRAPH 2014): this level's light from the
// downsampled chain (glow_down.frag), plus the level below, enlarged with a 3x3 tent filter.
// Each level adds a wider, softer ring, and the tent hides the blocks a plain lookup would show.

in vec2 v_uv;
out vec4 o_colour;

uniform sampler2D u_down;       // this level of the downsampled chain (same size as the output)
uniform sampler2D u_lower;      // the next smaller level on the way up (or of the chain, at the bottom)
uniform vec2 u_lower_texel;     // one texel of u_lower, in uv

// A 3x3 tent (1 2 1 / 2 4 2 / 1 2 1, /16) in four bilinear taps instead of nine: each tap at a
// diagonal offset of sqrt(1/2) texel averages a 2x2 neighbourhood, and the four together have
// the tent's spread (variance 2/3 texel^2 per axis), so the glow keeps its width at less than
// half the texture fetches.
vec3 tent(sampler2D t, vec2 uv, vec2 d) {
    vec2 o = 0.70710678 * d;
    return 0.25 * (texture(t, uv + o).rgb + texture(t, uv - o).rgb + texture(t, uv + vec2(o.x, -o.y)).rgb +
                   texture(t, uv + vec2(-o.x, o.y)).rgb);
}

void main() {
    vec3 here = texture(u_down, v_uv).rgb;
    o_colour = vec4(here + tent(u_lower, v_uv, u_lower_texel), 1.0);
}
