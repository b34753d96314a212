#version 450 core
// Trails as GL_LINES pulled from the ring of position snapshots (trail_renderer.hpp): no vertex
// buffer, gl_VertexID names the body, the segment and its end.
//   body = id / (2 * points), segment = (id / 2) % points, end = id & 1
// A segment joins ages `segment` and `segment + 1`; age 0 is the body's current position, age
// a > 0 the a-th newest snapshot.

layout(std430, binding = 0) readonly buffer Ring { vec4 ring[]; };        // slot * bodies + body
layout(std430, binding = 1) readonly buffer Current { vec4 current[]; };  // the particle buffer
layout(std430, binding = 2) readonly buffer Labels { uint labels[]; };    // galaxy | component << 16

uniform mat4 u_view_projection;
uniform int u_bodies;
uniform int u_capacity;  // slots in the ring
uniform int u_points;    // snapshots held (<= capacity)
uniform int u_newest;    // slot of the newest snapshot
uniform float u_intensity;  // light of the newest segment
uniform int u_colour_mode;  // 0 galaxy, 1 component, else plain (speed: the galaxy's hue)
uniform int u_hide_halo;
uniform vec3 u_galaxy_colours[8];
uniform vec3 u_component_colours[5];
uniform vec3 u_plain_colour;

out vec3 v_light;

const uint kHalo = 3u;

void main() {
    int body = gl_VertexID / (2 * u_points);
    int segment = (gl_VertexID / 2) % u_points;
    int age = segment + (gl_VertexID & 1);
    uint label = labels[body];
    uint galaxy = label & 0xffffu;
    uint component = label >> 16;
    if (u_hide_halo != 0 && component == kHalo) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // both ends outside the clip volume: dropped
        v_light = vec3(0.0);
        return;
    }
    vec3 p;
    if (age == 0) {
        p = current[body].xyz;
    } else {
        int slot = (u_newest - (age - 1) + u_capacity) % u_capacity;
        p = ring[slot * u_bodies + body].xyz;
    }
    gl_Position = u_view_projection * vec4(p, 1.0);
    // Linear fade by age over the ring's full length, so a growing trail does not re-fade.
    float fade = 1.0 - float(age) / float(u_capacity + 1);
    vec3 colour = u_colour_mode == 1 ? u_component_colours[min(component, 4u)]
                : u_colour_mode == 3 ? u_plain_colour
                                     : u_galaxy_colours[galaxy & 7u];
    v_light = colour * (u_intensity * fade);
}
