/* md.h - a small Lennard-Jones molecular dynamics code in seven files, built by its own Makefile
 * one file at a time, as real codes are: the multi-file benchmark (bench/README.md section 6).
 * The hot kernel (force.c) calls functions of other files before its pair loop; the pair loop
 * itself calls nothing. main.c holds the time-step loop and the only checkpoint pragma. */
#ifndef MD_H
#define MD_H

struct md_system {
  int n;         /* particles */
  double box;    /* edge of the periodic cube; positions stay in [0, box) */
  double *pos;   /* 3n coordinates */
  double *vel;   /* 3n velocities */
  double *force; /* 3n forces */
};

/* init.c: particles on a cubic lattice at `density`, random velocities of zero total momentum. */
void md_init(struct md_system *s, int n, double density, unsigned seed);
void md_free(struct md_system *s);

/* vec.c: array helpers. */
void md_zero(double *v, int n);
void md_wrap(double *v, int n, double box); /* every value into [0, box) */

/* potential.c: the Lennard-Jones pair potential (epsilon = sigma = 1), cut and shifted. */
struct md_potential {
  double cutoff2; /* squared cutoff distance */
  double shift;   /* energy at the cutoff, subtracted so the energy is continuous there */
};
void md_potential_setup(struct md_potential *p, double cutoff);

/* force.c: every pair within the cutoff; returns the potential energy. */
double md_forces(struct md_system *s, double cutoff);

/* integrate.c: velocity Verlet halves, and the kinetic energy. */
void md_kick(struct md_system *s, double dt);
void md_drift(struct md_system *s, double dt);
double md_kinetic(const struct md_system *s);

/* report.c: one line per reported step. */
void md_report(int step, double potential, double kinetic);

#endif
