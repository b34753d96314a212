#version 450 core
// Picking: the body whose image lies nearest the cursor, within a radius, found on the GPU so
// that only 8 bytes come back (body_picker.hpp). Two passes over the same arithmetic:
//   pass 0: best = min over bodies of the squared pixel distance (as uint: the bit patterns of
//           non-negative floats order like the floats, so atomicMin compares them exactly)
//   pass 1: index = the smallest index among the bodies at exactly that distance

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Labels { uint labels[]; };
layout(std430, binding = 2) buffer Result {
    uint best;   // floatBitsToUint(squared distance), 0xffffffff: none within the radius
    uint index;  // 0xffffffff: none
};

uniform mat4 u_view_projection;
uniform vec2 u_cursor;  // image pixels, y down
uniform vec2 u_size;    // image width, height
uniform float u_radius2;
uniform int u_bodies;
uniform int u_skip_halo;
uniform int u_pass;

const uint kHalo = 3u;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(u_bodies)) return;
    if (u_skip_halo != 0 && (labels[i] >> 16) == kHalo) return;
    vec4 clip = u_view_projection * vec4(positions[i].xyz, 1.0);
    if (clip.w <= 0.0) return;  // behind the camera
    vec2 ndc = clip.xy / clip.w;
    vec2 pixel = vec2((ndc.x * 0.5 + 0.5) * u_size.x, (0.5 - ndc.y * 0.5) * u_size.y);
    vec2 d = pixel - u_cursor;
    float d2 = dot(d, d);
    if (!(d2 <= u_radius2)) return;
    uint bits = floatBitsToUint(d2);
    if (u_pass == 0)
        atomicMin(best, bits);
    else if (bits == best)
        atomicMin(index, i);
}
