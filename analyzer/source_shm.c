/* Record source: a collector's --stream shm:PATH on this host (lib/records/stream_shm.h): its workers' batches
 * read in place from the shared file, a quiet turn every 100 ms, over after --duration. */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "record_source.h"
#include "stream_shm.h"

struct source_shm {
	struct record_source base;
	struct hw_shm_reader *r;
	uint64_t end_ns; /* monotonic; 0: until close */
};

static long shm_next(struct record_source *s, const struct hw_record **r, char *err, size_t errlen)
{
	struct source_shm *x = (struct source_shm *)s;
	if (x->end_ns && hw_mono_ns() >= x->end_ns)
		return HW_SRC_END;
	long n = hw_shm_reader_next(x->r, r, HW_SRC_FILE_BATCH, 100, err, errlen);
	return n < 0 ? HW_SRC_ERROR : n;
}

static void shm_close(struct record_source *s)
{
	struct source_shm *x = (struct source_shm *)s;
	hw_shm_reader_close(x->r);
	free(x);
}

static const struct record_source_ops shm_ops = {.next = shm_next, .close = shm_close};

struct record_source *hw_source_shm(const char *path, double duration_s, int quiet, char *err, size_t errlen)
{
	struct source_shm *x = calloc(1, sizeof(*x));
	if (!x || !(x->r = hw_shm_reader_open(path, err, errlen))) {
		if (x)
			free(x);
		else
			snprintf(err, errlen, "--stream shm:%s: out of memory", path);
		return NULL;
	}
	x->base.ops = &shm_ops;
	x->base.name = "--stream";
	x->base.live = 1;
	if (!quiet) /* "listening on", as for the sockets: scripts wait for that line */
		fprintf(stderr, "listening on shm:%s (the collector's file, mapped when it is there)\n", path);
	x->end_ns = duration_s > 0 ? hw_mono_ns() + (uint64_t)(duration_s * 1e9) : 0;
	return &x->base;
}
