/* read(2) until a count of bytes or the end of the file, retried on EINTR: the loop every reader of
 * regular files needs (a read may return less than asked before the end, after a signal). */
#ifndef HOPWATCH_READ_FULL_H
#define HOPWATCH_READ_FULL_H

#include <stddef.h>
#include <sys/types.h>

/* Read up to n bytes of fd into p: the bytes read (fewer than n only at the end of the file), or -1 with
 * errno on an error. */
ssize_t hw_read_full(int fd, void *p, size_t n);

#endif
