/* md.h - a small Lennard-Jones molecular dynamics code in seven files, built by its own Makefile
 * one file at a time, as real codes are: the multi-file benchmark (bench/README.md section 6).
 * The hot kernel (force.c) calls helpers of other files for every pair of particles; main.c
 * holds the time-step loop and the only checkpoint pragma. */
#ifndef MD_H
#define MD_H

struct md_system {
  int n;         /* particles */
  double box;    /* edge of the periodic cube */
  double *pos;   /* 3n coordinates */
  double *vel;   /* 3n velocities */
  double *force; /* 3n forces */
};

/* init.c: particles on a cubic lattice at `density`, random velocities of zero total momentum. */
void md_init(struct md_system *s, int n, double density, unsigned seed);
void md_free(struct md_system *s);

/* vec.c: squared distance of a and b under the minimum-image rule; d gets a - b. */
double md_distance2(const double *a, const double *b, double box, double *d);

/* potential.c: the Lennard-Jones pair potential (epsilon = sigma = 1). */
double md_force_over_r(double r2); /* |F| / r at squared distance r2 */
double md_energy(double r2);

/* force.c: every pair within the cutoff; returns the potential energy. */
double md_forces(struct md_system *s, double cutoff);

/* integrate.c: velocity Verlet halves, and the kinetic energy. */
void md_kick(struct md_system *s, double dt);
void md_drift(struct md_system *s, double dt);
double md_kinetic(const struct md_system *s);

/* report.c: one line per reported step. */
void md_report(int step, double potential, double kinetic);

#endif
