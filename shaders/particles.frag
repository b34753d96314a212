#version 450 core
// Soft Gaussian sprite. exp(-4 r^2) is 1.8% at the rim (r = 1); subtracting that and rescaling
// brings it to exactly zero there, so overlapping sprites show no hard edges.

in vec3 v_light;
out vec4 o_colour;

void main() {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(d, d);
    if (r2 >= 1.0) discard;
    const float rim = 0.01831564;  // exp(-4)
    float g = (exp(-4.0 * r2) - rim) / (1.0 - rim);
    o_colour = vec4(v_light * g, 0.0);
}
