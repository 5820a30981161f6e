#ifndef GLOSS_CMALLOC_H
#define GLOSS_CMALLOC_H
/*
 * glibc's allocator controls, which Swift's Glibc module leaves out: malloc_trim, to give the
 * pages of a C engine's freed blocks back to the system once the engine is gone.
 */
#include <malloc.h>
#endif
