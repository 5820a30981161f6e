#ifndef GLOSS_CPOPPLER_H
#define GLOSS_CPOPPLER_H
#include <poppler.h>
#include <cairo.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>

/* prctl is variadic, which Swift cannot call: gloss-render asks to be killed with Gloss. */
static inline int gloss_die_with_parent(void) { return prctl(PR_SET_PDEATHSIG, SIGKILL); }

/* A memory file (memfd_create, closed on exec) to hand a downloaded PDF to gloss-render; glibc
   declares memfd_create only for _GNU_SOURCE, which Swift's Glibc module is not built with. */
static inline int gloss_memory_file(void) { return (int)syscall(SYS_memfd_create, "gloss-pdf", 1u /* MFD_CLOEXEC */); }

/* A pipe whose ends are closed on exec from the start (pipe2, _GNU_SOURCE too): another page's
   gloss-render, started at the same moment, must not inherit them. */
static inline int gloss_pipe(int ends[2]) { return (int)syscall(SYS_pipe2, ends, O_CLOEXEC); }
#endif
