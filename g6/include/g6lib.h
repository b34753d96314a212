/* g6lib.h: the GRAPE-6 library interface, as Sapporo (Gaburov, Harfst & Portegies Zwart 2009)
 * provides it, on this project's Hermite force engine: the GPU when there is one, the CPU
 * otherwise. A program written for GRAPE-6 (phiGRAPE, Starlab, NBODY4) relinks against libg6.so.
 * Every call has a C name and a Fortran name (trailing underscore, arguments by reference).
 * docs/GRAPE6.md describes the semantics; in short:
 *
 *  - j-particles live at addresses 0 .. nj-1 (g6_set_j_particle). Each carries its particle
 *    index (id), its time tj, mass, x, v, a/2 (a2), jerk/6 (j6) and snap/18 (k18, accepted and
 *    not used: the predictor is Sapporo's, x + dt (v + dt (a2 + dt j6)), v + dt (2 a2 + 3 dt j6)).
 *  - g6_set_ti sets the time the j-particles are predicted to.
 *  - g6calc_firsthalf hands over up to g6_npipes() i-particles (index, predicted x and v, the
 *    neighbour radii squared h2) and computes; g6calc_lasthalf returns acceleration, jerk and
 *    potential (-sum m/r), g6calc_lasthalf2 also the index of each one's nearest neighbour. An
 *    i-particle does not feel the j-particle with its own index. Softening eps2 is per call.
 *  - Neighbour lists (j indices with r^2 < h2 of the i-particle) of the last calculation:
 *    g6_read_neighbour_list, then g6_get_neighbour_list per pipe.
 *  - Units: the library computes in floating point (double on the CPU, double-single positions
 *    on the GPU), so g6_set_tunit / g6_set_xunit (GRAPE-6's fixed-point scalings) are accepted
 *    and have no effect.
 *  - Return values: 0 (G6_OK) on success, non-zero on error, as GRAPE-6: the codes below. A
 *    message naming the call and the value goes to stderr, once per kind of error and call.
 *    g6calc_firsthalf returns nothing: its error is returned by the next g6calc_lasthalf.
 * Environment: G6_ENGINE = auto (default) | cpu | cuda picks the engine at g6_open. */
#ifndef NBODY_G6LIB_H
#define NBODY_G6LIB_H

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes */
#define G6_OK 0
#define G6_ERROR 1        /* the call failed: a cluster not open, the engine failed; also GRAPE-6's
                             "a neighbour list overflowed" / "too long for maxlength" (no message) */
#define G6_ERROR_VALUE 2  /* a value that cannot be computed with: NaN/Inf in ti, tj, mass, x, v,
                             a2, j6, xi, vi, h2; eps2 < 0; a null array; a non-finite force */
#define G6_ERROR_RANGE 3  /* a count or place outside what exists: nj past the j-particles set,
                             ni outside 0..g6_npipes(), an address outside 0..G6_MAX_J_PARTICLES-1 */
#define G6_ERROR_MEMORY 4 /* the j-memory could not grow (host or device memory) */

/* j-particle addresses are 0 .. G6_MAX_J_PARTICLES - 1 (2^24: 2.8 GB of j-memory on the host). */
#define G6_MAX_J_PARTICLES (1 << 24)

/* C interface */
int g6_open(int cluster_id);
int g6_close(int cluster_id);
int g6_npipes(void);
int g6_set_tunit(double tunit);
int g6_set_xunit(double xunit);
int g6_set_ti(int cluster_id, double ti);
int g6_set_j_particle(int cluster_id, int address, int index, double tj, double dtj, double mass,
                      double k18[3], double j6[3], double a2[3], double v[3], double x[3]);
void g6calc_firsthalf(int cluster_id, int nj, int ni, int index[], double xi[][3], double vi[][3],
                      double aold[][3], double j6old[][3], double phiold[], double eps2, double h2[]);
int g6calc_lasthalf(int cluster_id, int nj, int ni, int index[], double xi[][3], double vi[][3],
                    double eps2, double h2[], double acc[][3], double jerk[][3], double pot[]);
int g6calc_lasthalf2(int cluster_id, int nj, int ni, int index[], double xi[][3], double vi[][3],
                     double eps2, double h2[], double acc[][3], double jerk[][3], double pot[], int inn[]);
int g6_initialize_jp_buffer(int cluster_id, int buf_size);
int g6_flush_jp_buffer(int cluster_id);
int g6_reset(int cluster_id);
int g6_reset_fofpga(int cluster_id);
int g6_read_neighbour_list(int cluster_id);
int g6_get_neighbour_list(int cluster_id, int ipipe, int maxlength, int* n_neighbours, int neighbour_list[]);

/* Fortran interface: the same calls, every argument by reference */
int g6_open_(int* cluster_id);
int g6_close_(int* cluster_id);
int g6_npipes_(void);
int g6_set_tunit_(double* tunit);
int g6_set_xunit_(double* xunit);
int g6_set_ti_(int* cluster_id, double* ti);
int g6_set_j_particle_(int* cluster_id, int* address, int* index, double* tj, double* dtj, double* mass,
                       double k18[3], double j6[3], double a2[3], double v[3], double x[3]);
void g6calc_firsthalf_(int* cluster_id, int* nj, int* ni, int index[], double xi[][3], double vi[][3],
                       double aold[][3], double j6old[][3], double phiold[], double* eps2, double h2[]);
int g6calc_lasthalf_(int* cluster_id, int* nj, int* ni, int index[], double xi[][3], double vi[][3],
                     double* eps2, double h2[], double acc[][3], double jerk[][3], double pot[]);
int g6calc_lasthalf2_(int* cluster_id, int* nj, int* ni, int index[], double xi[][3], double vi[][3],
                      double* eps2, double h2[], double acc[][3], double jerk[][3], double pot[], int inn[]);
int g6_initialize_jp_buffer_(int* cluster_id, int* buf_size);
int g6_flush_jp_buffer_(int* cluster_id);
int g6_reset_(int* cluster_id);
int g6_reset_fofpga_(int* cluster_id);
int g6_read_neighbour_list_(int* cluster_id);
int g6_get_neighbour_list_(int* cluster_id, int* ipipe, int* maxlength, int* n_neighbours, int neighbour_list[]);

#ifdef __cplusplus
}
#endif

#endif /* NBODY_G6LIB_H */
