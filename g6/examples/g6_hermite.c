/* g6_hermite: a 4th-order Hermite block-step N-body code written against the GRAPE-6 interface
 * (g6lib.h), as phiGRAPE or NBODY4 are: the host keeps the particles, predicts and corrects the
 * active ones; the library holds the j-particles, predicts them and computes the forces. Its
 * scheme, step rules and arithmetic are those of nbody's built-in integrator
 * (sim/include/nbody/sim/hermite/integrator.hpp), so both give the same trajectories.
 *
 * Usage: g6_hermite INPUT.csv T_END [ETA=0.01] [SOFTENING=0] [DT_MAX=0.125] > OUTPUT.csv
 *   INPUT.csv: a header line, then x,y,z,vx,vy,vz,m per body (nbody's CSV column order).
 *   Writes x,y,z,vx,vy,vz,m at T_END with 17 significant digits; statistics go to stderr.
 * Build: cc g6_hermite.c -I g6/include -L build/g6 -lg6 -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g6lib.h"

#define MAX_LEVEL 40

typedef struct {
    double m, t;
    double x[3], v[3], a[3], j[3];
    int level;
} Body;

static int n;
static Body* b;
static double dt_max, eta, eta_start, eps2;

static double level_dt(int k) { return ldexp(dt_max, -k); }
static double norm3(const double* v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static void send_j(int i) {
    double a2[3], j6[3], k18[3] = {0, 0, 0};
    for (int c = 0; c < 3; ++c) {
        a2[c] = b[i].a[c] * 0.5;
        j6[c] = b[i].j[c] * (1.0 / 6.0);
    }
    g6_set_j_particle(0, i, i, b[i].t, level_dt(b[i].level), b[i].m, k18, j6, a2, b[i].v, b[i].x);
}

static void predict(int i, double t, double xp[3], double vp[3]) {
    const double dt = t - b[i].t;
    for (int c = 0; c < 3; ++c) {
        const double a2 = b[i].a[c] * 0.5, j6 = b[i].j[c] * (1.0 / 6.0);
        xp[c] = b[i].x[c] + dt * (b[i].v[c] + dt * (a2 + dt * j6));
        vp[c] = b[i].v[c] + dt * (2.0 * a2 + dt * 3.0 * j6);
    }
}

/* Forces on the bodies list[0..m) at time t, in chunks of g6_npipes(). */
static double (*xp)[3], (*vp)[3], (*acc)[3], (*jrk)[3], *pot, *h2;
static int *idx, *inn;
static long long evaluations;

static void forces(double t, const int* list, int m) {
    const int pipes = g6_npipes();
    g6_set_ti(0, t);
    for (int s = 0; s < m; s += pipes) {
        const int ni = m - s < pipes ? m - s : pipes;
        for (int k = 0; k < ni; ++k) {
            idx[s + k] = list[s + k];
            predict(list[s + k], t, xp[s + k], vp[s + k]);
            h2[s + k] = 0;
        }
        g6calc_firsthalf(0, n, ni, idx + s, xp + s, vp + s, acc + s, jrk + s, pot + s, eps2, h2 + s);
        if (g6calc_lasthalf2(0, n, ni, idx + s, xp + s, vp + s, eps2, h2 + s, acc + s, jrk + s, pot + s, inn + s)) {
            fprintf(stderr, "g6_hermite: force calculation failed at t = %.17g\n", t);
            exit(1);
        }
    }
    for (int k = 0; k < m; ++k)
        for (int c = 0; c < 3; ++c)
            if (!isfinite(acc[k][c]) || !isfinite(jrk[k][c])) {
                fprintf(stderr, "g6_hermite: non-finite force on body %d at t = %.17g\n", list[k], t);
                exit(1);
            }
    evaluations += m;
}

/* Corrector and new level for list[k], from the forces of the last call; as integrator.cpp. */
static void correct(double t, const int* list, int m, int block_grid) {
    for (int k = 0; k < m; ++k) {
        Body* p = &b[list[k]];
        const double dt = t - p->t, dt2 = dt * dt, dt3 = dt2 * dt;
        double a2[3], a3[3], a2e[3];
        for (int c = 0; c < 3; ++c) {
            a2[c] = (-6.0 * (p->a[c] - acc[k][c]) - dt * (4.0 * p->j[c] + 2.0 * jrk[k][c])) * (1.0 / dt2);
            a3[c] = (12.0 * (p->a[c] - acc[k][c]) + 6.0 * dt * (p->j[c] + jrk[k][c])) * (1.0 / dt3);
        }
        for (int c = 0; c < 3; ++c) {
            p->x[c] = xp[k][c] + a2[c] * (dt2 * dt2 / 24.0) + a3[c] * (dt2 * dt3 / 120.0);
            p->v[c] = vp[k][c] + a2[c] * (dt3 / 6.0) + a3[c] * (dt2 * dt2 / 24.0);
            a2e[c] = a2[c] + dt * a3[c];
            p->a[c] = acc[k][c];
            p->j[c] = jrk[k][c];
        }
        const double s2 = norm3(a2e), s3 = norm3(a3), aa = norm3(p->a), jj = norm3(p->j);
        const double num = aa * s2 + jj * jj, den = jj * s3 + s2 * s2;
        const double dt_crit = den > 0 ? sqrt(eta * num / den) : INFINITY;
        int level = 0;
        while (level <= MAX_LEVEL + 1 && level_dt(level) > dt_crit) ++level;
        if (level < p->level) {
            level = p->level - 1;
            if (fmod(block_grid ? t : 0.0, level_dt(level)) != 0) level = p->level;
        }
        if (level > MAX_LEVEL) {
            fprintf(stderr, "g6_hermite: step underflow for body %d at t = %.17g\n", list[k], t);
            exit(1);
        }
        p->level = level;
        p->t = t;
    }
    for (int k = 0; k < m; ++k) send_j(list[k]);
}

static int read_csv(const char* path) {
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    if (!fgets(line, sizeof line, f)) return -1;  /* header */
    int cap = 1024;
    b = malloc(sizeof(Body) * cap);
    n = 0;
    while (fgets(line, sizeof line, f)) {
        Body p;
        memset(&p, 0, sizeof p);
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &p.x[0], &p.x[1], &p.x[2], &p.v[0], &p.v[1], &p.v[2], &p.m) != 7)
            continue;
        if (n == cap) b = realloc(b, sizeof(Body) * (cap *= 2));
        b[n++] = p;
    }
    fclose(f);
    return n;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s INPUT.csv T_END [ETA=0.01] [SOFTENING=0] [DT_MAX=0.125]\n", argv[0]);
        return 2;
    }
    const double t_end = atof(argv[2]);
    eta = argc > 3 ? atof(argv[3]) : 0.01;
    const double eps = argc > 4 ? atof(argv[4]) : 0.0;
    eps2 = eps * eps;
    dt_max = argc > 5 ? atof(argv[5]) : 0.125;
    { int e; frexp(dt_max, &e); dt_max = ldexp(1.0, e - 1); }  /* a power of two, as the built-in one */
    eta_start = eta / 2;
    if (read_csv(argv[1]) <= 0) {
        fprintf(stderr, "g6_hermite: cannot read bodies from %s\n", argv[1]);
        return 1;
    }
    if (g6_open(0)) return 1;
    xp = malloc(sizeof *xp * n); vp = malloc(sizeof *vp * n); acc = malloc(sizeof *acc * n);
    jrk = malloc(sizeof *jrk * n); pot = malloc(sizeof *pot * n); h2 = malloc(sizeof *h2 * n);
    idx = malloc(sizeof *idx * n); inn = malloc(sizeof *inn * n);
    int* list = malloc(sizeof *list * n);

    /* Start: forces at t = 0 on everybody, first steps eta_start |a| / |j|. */
    for (int i = 0; i < n; ++i) send_j(i);
    for (int i = 0; i < n; ++i) list[i] = i;
    forces(0.0, list, n);
    for (int i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c) {
            b[i].a[c] = acc[i][c];
            b[i].j[c] = jrk[i][c];
        }
        const double aa = norm3(b[i].a), jj = norm3(b[i].j);
        double dt = jj > 0 ? eta_start * aa / jj : INFINITY;
        if (!(dt >= level_dt(MAX_LEVEL)) && inn[i] >= 0) { /* a = 0 at a point of symmetry */
            double d[3], r2, mm = b[i].m + b[inn[i]].m;
            for (int c = 0; c < 3; ++c) d[c] = b[inn[i]].x[c] - b[i].x[c];
            r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 > 0 && mm > 0) dt = eta_start * sqrt(r2 * sqrt(r2) / mm);
        }
        int level = 0;
        while (level <= MAX_LEVEL && level_dt(level) > dt) ++level;
        b[i].level = level;
    }
    for (int i = 0; i < n; ++i) send_j(i);

    /* Block steps up to t_end, then one step of its own length for each body still behind. */
    long long blocks = 0;
    double t = 0;
    for (;;) {
        double t_next = INFINITY;
        for (int i = 0; i < n; ++i)
            if (b[i].t + level_dt(b[i].level) < t_next) t_next = b[i].t + level_dt(b[i].level);
        if (!(t_next <= t_end)) break;
        int m = 0;
        for (int i = 0; i < n; ++i)
            if (b[i].t + level_dt(b[i].level) == t_next) list[m++] = i;
        forces(t_next, list, m);
        correct(t_next, list, m, 1);
        t = t_next;
        ++blocks;
    }
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (b[i].t < t_end) list[m++] = i;
    if (m > 0) {
        forces(t_end, list, m);
        correct(t_end, list, m, 0);
        ++blocks;
    }
    (void)t;
    g6_close(0);
    printf("x,y,z,vx,vy,vz,m\n");
    for (int i = 0; i < n; ++i)
        printf("%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", b[i].x[0], b[i].x[1], b[i].x[2], b[i].v[0], b[i].v[1],
               b[i].v[2], b[i].m);
    fprintf(stderr, "g6_hermite: %d bodies to t = %g: %lld blocks, %lld force evaluations\n", n, t_end, blocks,
            evaluations);
    return 0;
}
