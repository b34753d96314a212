#version 450 core
// One point sprite per particle. Light adds up in a float target; see particles.frag.
#include "particle_sprite.glsl"

layout(location = 0) in vec4 a_position;  // x, y, z, mass: the buffer the integrator just wrote
layout(location = 1) in vec4 a_previous;  // the same particle in the other ping-pong buffer
layout(location = 2) in uint a_label;     // galaxy | component << 16

out vec3 v_light;

void main() {
    Sprite s = particle_sprite(a_position, a_previous, a_label, uint(gl_VertexID));
    if (!s.visible) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // outside every clip plane: the point is dropped
        gl_PointSize = 1.0;
        v_light = vec3(0.0);
        return;
    }
    gl_Position = s.clip;
    gl_PointSize = s.width;
    v_light = s.light;
}
