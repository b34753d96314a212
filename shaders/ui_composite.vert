#version 450 core
// One rectangle of the cached panels per instance (render/ui_cache.hpp): its corners from
// gl_VertexID, drawn as a 4-vertex triangle strip.

layout(location = 0) in ivec4 a_rect;  // x0, y0, x1, y1 in framebuffer pixels

uniform vec2 u_size;  // the framebuffer's size in pixels, the picture's too

out vec2 v_uv;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
    vec2 p = mix(vec2(a_rect.xy), vec2(a_rect.zw), corner);
    v_uv = p / u_size;
    gl_Position = vec4(v_uv * 2.0 - 1.0, 0.0, 1.0);
}
