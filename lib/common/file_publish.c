/* an_publish_file: one written file given its time-named and its stable name, each by an atomic
 * rename (file_publish.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "file_publish.h"

int an_publish_file(const char *tmp, const char *timed, const char *stable)
{
	if (rename(tmp, timed) == 0 && link(timed, tmp) == 0 && rename(tmp, stable) == 0)
		return 0;
	int e = errno;
	unlink(tmp);
	errno = e;
	return -1;
}
