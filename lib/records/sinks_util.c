/* Small helpers every sink uses: error messages into caller buffers and the monotonic clock.
 * Kept apart so the record file code does not pull in the stream code. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "sinks_internal.h"

void hw_sink_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

uint64_t hw_sink_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
