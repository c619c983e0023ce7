/* c3.h - what applications built with c3cc may call. */
#ifndef C3_H
#define C3_H

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero while the program runs from a restored checkpoint (from the start of the restarted
 * process on). Files the program opened are reopened by c3; pipes, sockets and threads are not
 * part of a checkpoint: open or start them again when this is set. */
int c3_restarting(void);

/* Register a function called once, right after a restart has rebuilt the program's state and
 * before execution continues behind the checkpoint pragma. Returns 0, or -1 when too many are
 * registered (16). */
int c3_on_restart(void (*callback)(void *arg), void *arg);

/* Number of the checkpoint the process restarted from, or 0 in a fresh run. */
long c3_restart_checkpoint(void);

#ifdef __cplusplus
}
#endif
#endif
