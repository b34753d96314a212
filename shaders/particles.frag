#version 450 core
// The sprite's light at this fragment (sprite_profile in particle_sprite.glsl).
#include "particle_sprite.glsl"

in vec3 v_light;
out vec4 o_colour;

void main() {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(d, d);
    if (r2 >= 1.0) discard;
    o_colour = vec4(v_light * sprite_profile(r2), 0.0);
}
