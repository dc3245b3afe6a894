/* Record source: the collector's live stream (--stream unix:PATH | tcp:HOST:PORT, docs/records.md):
 * batches as they arrive, authenticated with --stream-key, a quiet turn every 100 ms, over after --duration. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hopwatch/stream.h"
#include "record_source.h"

struct source_stream {
	struct record_source base;
	struct hw_stream_listener *l;
	double end; /* monotonic seconds; 0: until close */
	struct hw_record buf[HW_STREAM_MAX_BATCH];
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long stream_next(struct record_source *s, const struct hw_record **r, char *err, size_t errlen)
{
	struct source_stream *x = (struct source_stream *)s;
	if (x->end && mono_s() >= x->end)
		return HW_SRC_END;
	long n = hw_stream_receive(x->l, x->buf, 100, err, errlen);
	*r = x->buf;
	return n < 0 ? HW_SRC_ERROR : n;
}

static void stream_close(struct record_source *s)
{
	struct source_stream *x = (struct source_stream *)s;
	uint64_t refused = hw_stream_auth_failures(x->l);
	if (refused)
		fprintf(stderr,
		        "hopwatch-analyzer run: --stream: %llu connections closed for frames the stream key "
		        "did not authenticate\n",
		        (unsigned long long)refused);
	uint64_t per_peer, full = hw_stream_refused(x->l, &per_peer);
	if (full)
		fprintf(stderr,
		        "hopwatch-analyzer run: --stream: %llu connections refused (%llu: more than %d from one host; "
		        "the rest: all 64 taken)\n",
		        (unsigned long long)full, (unsigned long long)per_peer, HW_STREAM_MAX_PER_PEER);
	hw_stream_listener_close(x->l);
	free(x);
}

static const struct record_source_ops stream_ops = {.next = stream_next, .close = stream_close};

struct record_source *hw_source_stream(const char *addr, const char *key_path, double duration_s, int quiet, char *err,
                                       size_t errlen)
{
	struct source_stream *x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "--stream %s: out of memory", addr);
		return NULL;
	}
	if (!(x->l = hw_stream_listen_keyed(addr, key_path, err, errlen))) {
		free(x);
		return NULL;
	}
	x->base.ops = &stream_ops;
	x->base.name = "--stream";
	x->base.live = 1;
	if (!quiet)
		fprintf(stderr, "listening on %s\n", hw_stream_listener_address(x->l));
	x->end = duration_s > 0 ? mono_s() + duration_s : 0;
	return &x->base;
}
