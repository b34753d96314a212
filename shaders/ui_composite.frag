#version 450 core
// The cached panels' pixel under this one, premultiplied: blended with GL_ONE,
// GL_ONE_MINUS_SRC_ALPHA. The picture is the framebuffer's size and sampled nearest, so v_uv
// picks this pixel's texel (on llvmpipe a little cheaper than texelFetch at gl_FragCoord).

in vec2 v_uv;

layout(binding = 0) uniform sampler2D u_picture;

out vec4 o_colour;

void main() { o_colour = texture(u_picture, v_uv); }
