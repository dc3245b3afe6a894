/* hw_errf: formatting an error message into a caller's buffer, which may be absent (see errf.h). */
#include <stdarg.h>
#include <stdio.h>

#include "errf.h"

void hw_errf(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
