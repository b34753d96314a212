#version 450 core
// A trail segment's light, added into the float target like the particles' (trails.vert).
in vec3 v_light;
out vec4 colour;

void main() { colour = vec4(v_light, 0.0); }  // alpha 0, as the particles write
