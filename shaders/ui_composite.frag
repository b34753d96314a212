#version 450 core
// The cached panels' pixel under this one, premultiplied: blended with GL_ONE,
// GL_ONE_MINUS_SRC_ALPHA. The picture is the framebuffer's size, so no filtering.

layout(binding = 0) uniform sampler2D u_picture;

out vec4 o_colour;

void main() { o_colour = texelFetch(u_picture, ivec2(gl_FragCoord.xy), 0); }
