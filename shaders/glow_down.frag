#version 450 core
// One step down the glow pyramid: this level (half the size of the one it reads) from four
// bilinear taps one source texel off the centre in each diagonal. Each tap averages a 2x2 block,
// so the four cover a 4x4 footprint with tent-like weights: a small bright particle moving by a
// fraction of a pixel changes every level smoothly (a plain 2x2 mipmap box jumps when it crosses
// a block edge, and drops a row or column at odd sizes, which showed as flicker and bands).
// Sampling by uv, not by texel index, keeps odd sizes centred.

in vec2 v_uv;
out vec4 o_colour;

uniform sampler2D u_source;   // the level above (the float target for the first step)
uniform vec2 u_source_texel;  // one texel of u_source, in uv

void main() {
    vec2 o = u_source_texel;
    vec3 c = texture(u_source, v_uv + vec2(-o.x, -o.y)).rgb + texture(u_source, v_uv + vec2(o.x, -o.y)).rgb +
             texture(u_source, v_uv + vec2(-o.x, o.y)).rgb + texture(u_source, v_uv + vec2(o.x, o.y)).rgb;
    o_colour = vec4(0.25 * c, 1.0);
}
