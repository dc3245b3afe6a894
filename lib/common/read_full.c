/* read(2) until a count of bytes or the end of the file, retried on EINTR: shared by the pcap direct
 * reader and the record-file reader. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "read_full.h"

ssize_t hw_read_full(int fd, void *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, (uint8_t *)p + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}
