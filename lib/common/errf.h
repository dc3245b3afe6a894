/* Error text into a caller's buffer: the one helper behind every "char *err, size_t errlen" pair of
 * the libraries. */
#ifndef HOPWATCH_ERRF_H
#define HOPWATCH_ERRF_H

#include <stddef.h>

/* snprintf into err when err is not NULL (errlen may be 0: nothing is written). */
void hw_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
