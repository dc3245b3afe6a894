/* For fuzz targets whose reader takes a path: the input as a file, through one memfd reused for every run
 * (no disk I/O), named /proc/self/fd/N. */
#ifndef HOPWATCH_FUZZ_INPUT_H
#define HOPWATCH_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The path of a file holding exactly data[0..size); NULL when the memfd cannot be made or written. */
static inline const char *fuzz_input_path(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return NULL;
	return path;
}

/* Whether a topology reader's refusal says why, in a terminated message (struct hw_topo_error). */
#define FUZZ_REFUSAL_SAYS_WHY(err)                                                                                     \
	((err).message[0] && strnlen((err).message, sizeof((err).message)) < sizeof((err).message))

#endif
