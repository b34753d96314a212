#version 450 core
// Zeroes splat.comp's sums for the next frame, 16 bytes an invocation. A compute pass rather than
// glClearNamedBufferData: on an H100 the ~100 MB of a 1080p frame's planes took ~4 ms to clear
// that way (device runs 97-98: the compute path's cost beside N did not move when its blur was
// made several times cheaper), like other work the driver does not give to the whole chip.

layout(local_size_x = 256) in;

layout(std430, binding = 3) writeonly buffer Light { uvec4 light[]; };
layout(std430, binding = 4) writeonly buffer Saturated { uvec4 saturated[]; };

uniform uint u_light_quads;
uniform uint u_saturated_quads;

void main() {
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < u_light_quads) light[i] = uvec4(0u);
    if (i < u_saturated_quads) saturated[i] = uvec4(0u);
}
