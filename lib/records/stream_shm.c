/* shm:PATH, the live stream on one host (stream_shm.h): the collector creates the file of its workers' batch
 * rings and removes it at the end; the analyzer maps it, takes batches in place, and follows PATH to the next. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "stream_shm.h"
#include "table_mem.h"

#define PAGE 4096u
#define RETRY_NS 100000000ull      /* a missing file is looked for every 100 ms */
#define RETRY_ERR_NS 1000000000ull /* a file that could not be read, every second */
#define CHECK_NS 100000000ull      /* a quiet reader asks at most this often whether its collector is gone */

/* pid names a live process (0 names none). */
static int alive(uint32_t pid)
{
	return pid && !(kill((pid_t)pid, 0) && errno == ESRCH);
}

static size_t ring_bytes(uint32_t batches)
{
	return PAGE + hw_round_up((size_t)batches * sizeof(struct hw_batch), PAGE);
}

static void ring_over(void *map, uint64_t rbytes, unsigned i, uint32_t batches, struct hw_batch_ring *r)
{
	r->bell = &((struct hw_shm_header *)map)->bell;
	r->ctl = (struct hw_batch_ring_ctl *)((char *)map + PAGE + (size_t)i * rbytes);
	r->slots = (struct hw_batch *)((char *)r->ctl + PAGE);
	r->mask = batches - 1;
	r->shared = 1;
}

const char *hw_shm_path(const char *addr)
{
	return addr && !strncmp(addr, "shm:", 4) ? addr + 4 : NULL;
}

const char *hw_shm_key_conflict(const char *addr, const char *key_path)
{
	return hw_shm_path(addr) && key_path ? "--stream-key is for unix: and tcp: streams; a shm: file is guarded by "
	                                       "its mode (600, the collector's user)"
	                                     : NULL;
}

struct hw_shm_writer {
	char *path;
	char down[320];
	void *map;
	size_t len;
	dev_t dev;
	ino_t ino;
	struct hw_shm_header *h;
};

struct hw_shm_writer *hw_shm_writer_create(const char *path, unsigned n_rings, uint32_t ring_batches, int lossless,
                                           char *err, size_t errlen)
{
	if (!path || !*path) { /* also tells GCC's sanitizer build that the messages below have a path */
		snprintf(err, errlen, "--stream shm: give a file path (shm:PATH)");
		return NULL;
	}
	uint32_t nb = hw_batch_ring_slots(ring_batches);
	size_t rbytes = ring_bytes(nb), len = PAGE + (size_t)n_rings * rbytes;
	struct hw_shm_writer *w = calloc(1, sizeof(*w));
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 8);
	if (!w || !tmp || !(w->path = strdup(path))) {
		snprintf(err, errlen, "--stream shm:%s: out of memory", path);
		goto fail;
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".XXXXXX", 8);
	int fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600: only this user's analyzer can map it */
	if (fd < 0) {
		snprintf(err, errlen, "--stream shm:%s: cannot create %s: %s", path, tmp, strerror(errno));
		goto fail;
	}
	int e = posix_fallocate(fd, 0, (off_t)len); /* a full tmpfs fails here, not with SIGBUS in a worker */
	struct stat st;
	if (e || fstat(fd, &st)) {
		snprintf(err, errlen, "--stream shm:%s: cannot reserve %zu bytes: %s", path, len,
		         strerror(e ? e : errno));
		close(fd);
		unlink(tmp);
		goto fail;
	}
	w->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (w->map == MAP_FAILED) {
		w->map = NULL;
		snprintf(err, errlen, "--stream shm:%s: cannot map %zu bytes: %s", path, len, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	w->len = len;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->h = w->map;
	*w->h = (struct hw_shm_header){.version = HW_SHM_VERSION,
	                               .record_size = sizeof(struct hw_record),
	                               .batch_bytes = sizeof(struct hw_batch),
	                               .batch_recs = HW_BATCH_RECS,
	                               .n_rings = n_rings,
	                               .ring_batches = nb,
	                               .ring_bytes = rbytes,
	                               .pid = (uint32_t)getpid()};
	for (unsigned i = 0; i < n_rings; i++) {
		struct hw_batch_ring r;
		ring_over(w->map, rbytes, i, nb, &r);
		r.ctl->consumer = lossless != 0;
	}
	__atomic_store_n(&w->h->magic, HW_SHM_MAGIC, __ATOMIC_RELEASE);
	if (rename(tmp, path)) { /* PATH appears whole, or a reader never sees it */
		snprintf(err, errlen, "--stream shm:%s: cannot rename %s to it: %s", path, tmp, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	free(tmp);
	snprintf(w->down, sizeof(w->down), "stream shm:%.280s (no analyzer attached)", path);
	return w;
fail:
	free(tmp);
	if (w) {
		if (w->map)
			munmap(w->map, len);
		free(w->path);
		free(w);
	}
	return NULL;
}

void hw_shm_writer_ring(struct hw_shm_writer *w, unsigned i, struct hw_batch_ring *r)
{
	ring_over(w->map, w->h->ring_bytes, i, w->h->ring_batches, r);
}

static uint64_t writer_sum(const struct hw_shm_writer *w, int waiting, int *consumers)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < w->h->n_rings; i++) {
		struct hw_batch_ring r;
		ring_over(w->map, w->h->ring_bytes, i, w->h->ring_batches, &r);
		n += waiting ? hw_batch_ring_records_waiting(&r) : __atomic_load_n(&r.ctl->taken, __ATOMIC_RELAXED);
		if (consumers)
			*consumers += hw_batch_ring_has_consumer(&r);
	}
	return n;
}

const char *hw_shm_writer_down(const struct hw_shm_writer *w)
{
	/* a reader killed never detached: its pid says so */
	return alive(__atomic_load_n(&w->h->reader_pid, __ATOMIC_ACQUIRE)) ? NULL : w->down;
}

uint64_t hw_shm_writer_taken(const struct hw_shm_writer *w)
{
	return writer_sum(w, 0, NULL);
}

uint64_t hw_shm_writer_close(struct hw_shm_writer *w, int wait_ms, uint64_t *taken)
{
	__atomic_store_n(&w->h->closed, 1, __ATOMIC_RELEASE);
	uint64_t left, before = UINT64_MAX;
	/* "a consumer" from the rings' flags, not the reader's pid: a lossless file starts with them set, so that a
	 * capture read faster than the analyzer attaches (it looks every 100 ms) still waits for it here.  The wait
	 * ends wait_ms after the reader last took something, not wait_ms after it began: a reader that keeps taking
	 * gets all of it (the rings bound how long that is), one that is stopped or gone costs wait_ms */
	for (int idle = 0;; idle += 10) {
		int consumers = 0;
		left = writer_sum(w, 1, &consumers);
		if (left < before)
			idle = 0;
		before = left;
		if (!left || !consumers || idle >= wait_ms)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	if (taken)
		*taken = writer_sum(w, 0, NULL);
	struct stat st;
	if (!stat(w->path, &st) && st.st_dev == w->dev && st.st_ino == w->ino) /* not a newer collector's */
		unlink(w->path);
	munmap(w->map, w->len);
	free(w->path);
	free(w);
	return left;
}

struct hw_shm_reader {
	char *path;
	int fd; /* -1: not attached */
	void *map;
	size_t len;
	dev_t dev;
	ino_t ino;
	struct hw_shm_header *h;
	struct hw_batch_ring *rings;
	unsigned n_rings, next_ring, attached;
	struct hw_batch_ring *held; /* the ring whose oldest batch is being returned, up to held_off of held_n */
	const struct hw_batch *held_b;
	uint32_t held_off, held_n; /* n read once: the collector's memory is not trusted to hold still */
	uint64_t next_try_ns, next_check_ns;
	char last_err[320];
};

struct hw_shm_reader *hw_shm_reader_open(const char *path, char *err, size_t errlen)
{
	struct hw_shm_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		snprintf(err, errlen, "--stream shm:%s: out of memory", path);
		return NULL;
	}
	r->fd = -1;
	return r;
}

static void detach(struct hw_shm_reader *r)
{
	__atomic_store_n(&r->h->reader_pid, 0, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < r->n_rings; i++)
		__atomic_store_n(&r->rings[i].ctl->consumer, 0, __ATOMIC_RELEASE);
	free(r->rings);
	r->rings = NULL;
	r->n_rings = 0;
	r->held = NULL;
	munmap(r->map, r->len);
	r->map = NULL;
	close(r->fd); /* and with it the lock */
	r->fd = -1;
}

/* Reads fd's header into *h: why it cannot be read as this build's ring file, or NULL. */
static const char *read_header(int fd, struct hw_shm_header *h)
{
	if (pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h) || h->magic != HW_SHM_MAGIC)
		return "not a hopwatch collector's shared stream";
	if (h->version != HW_SHM_VERSION)
		return "written by a collector of another stream version";
	if (h->record_size != sizeof(struct hw_record) || h->batch_bytes != sizeof(struct hw_batch) ||
	    h->batch_recs != HW_BATCH_RECS)
		return "its record layout is not this analyzer's (collector and analyzer from different builds)";
	return NULL;
}

int hw_shm_probe(const char *path, uint32_t *collector_pid, uint32_t *reader_pid, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "shm:%s: %s", path, strerror(errno));
		return -1;
	}
	struct hw_shm_header h;
	const char *bad = read_header(fd, &h);
	close(fd);
	if (bad) {
		snprintf(err, errlen, "shm:%s: %s", path, bad);
		return -1;
	}
	*collector_pid = h.pid;
	*reader_pid = alive(h.reader_pid) ? h.reader_pid : 0;
	return 0;
}

/* 1 attached, 0 no file there, -1 a file that cannot be read (err). */
static int attach(struct hw_shm_reader *r, char *err, size_t errlen)
{
	int fd = open(r->path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "--stream shm:%s: %s", r->path, strerror(errno));
		return -1;
	}
	struct hw_shm_header h;
	struct stat st;
	const char *bad = NULL;
	if (flock(fd, LOCK_EX | LOCK_NB))
		bad = errno == EWOULDBLOCK ? "another analyzer is reading it" : strerror(errno);
	else if (fstat(fd, &st))
		bad = "not a hopwatch collector's shared stream";
	else if ((bad = read_header(fd, &h)))
		;
	else if (!h.n_rings || h.n_rings > 1024 || h.ring_batches < 2 || h.ring_batches > (1u << 16) ||
	         (h.ring_batches & (h.ring_batches - 1)) || h.ring_bytes != ring_bytes(h.ring_batches) ||
	         (uint64_t)st.st_size != PAGE + (uint64_t)h.n_rings * h.ring_bytes)
		bad = "its size does not match its header";
	if (bad) {
		snprintf(err, errlen, "--stream shm:%s: %s", r->path, bad);
		close(fd);
		return -1;
	}
	size_t len = (size_t)st.st_size;
	void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct hw_batch_ring *rings = calloc(h.n_rings, sizeof(*rings));
	if (map == MAP_FAILED || !rings) {
		snprintf(err, errlen, "--stream shm:%s: cannot map %zu bytes: %s", r->path, len,
		         map == MAP_FAILED ? strerror(errno) : "out of memory");
		if (map != MAP_FAILED)
			munmap(map, len);
		free(rings);
		close(fd);
		return -1;
	}
	r->fd = fd;
	r->map = map;
	r->len = len;
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	r->h = map;
	r->rings = rings;
	r->n_rings = h.n_rings;
	r->next_ring = 0;
	for (unsigned i = 0; i < h.n_rings; i++) {
		ring_over(map, h.ring_bytes, i, h.ring_batches, &rings[i]);
		__atomic_store_n(&rings[i].ctl->consumer, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->h->reader_pid, (uint32_t)getpid(), __ATOMIC_RELEASE);
	r->attached++;
	r->last_err[0] = 0;
	return 1;
}

/* Nothing published: whether this file's collector is done with it (closed, gone, or PATH now another file). */
static int finished(const struct hw_shm_reader *r)
{
	if (__atomic_load_n(&r->h->closed, __ATOMIC_ACQUIRE))
		return 1;
	if (!alive(r->h->pid))
		return 1;
	struct stat st;
	return !stat(r->path, &st) && (st.st_dev != r->dev || st.st_ino != r->ino);
}

static int published(const struct hw_shm_reader *r)
{
	for (unsigned i = 0; i < r->n_rings; i++)
		if (hw_batch_ring_waiting(&r->rings[i]))
			return 1;
	return 0;
}

/* Until `until` (monotonic ns, > now) or, attached, the next published batch: the collector's publish wakes
 * the futex on the header's bell (hw_batch_ring_wake), so a quiet reader costs no CPU. */
static void sleep_until(struct hw_shm_reader *r, uint64_t until, uint64_t now)
{
	uint64_t ns = until > now ? until - now : 0;
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	if (!r->map) {
		nanosleep(&ts, NULL);
		return;
	}
	__atomic_store_n(&r->h->bell, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* against the publisher's fence (batch_ring.c) */
	if (!published(r))
		syscall(SYS_futex, &r->h->bell, FUTEX_WAIT, 1, &ts, NULL, 0);
	__atomic_store_n(&r->h->bell, 0, __ATOMIC_RELAXED);
}

static long take(struct hw_shm_reader *r, const struct hw_record **recs, size_t max)
{
	uint32_t n = r->held_n - r->held_off;
	if (n > max)
		n = (uint32_t)max;
	*recs = r->held_b->recs + r->held_off;
	r->held_off += n;
	return n;
}

long hw_shm_reader_next(struct hw_shm_reader *r, const struct hw_record **recs, size_t max, int timeout_ms, char *err,
                        size_t errlen)
{
	if (r->held) {
		if (r->held_off < r->held_n)
			return take(r, recs, max);
		hw_batch_ring_release(r->held);
		r->held = NULL;
	}
	uint64_t now = hw_mono_ns(), deadline = now + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
	for (;;) {
		if (r->map) {
			/* an empty check that comes after reading `closed` is final: the last publish came before it */
			int done = now >= r->next_check_ns && finished(r);
			for (unsigned k = 0; k < r->n_rings; k++) {
				struct hw_batch_ring *ring = &r->rings[(r->next_ring + k) % r->n_rings];
				struct hw_batch *b = hw_batch_ring_peek(ring);
				if (!b)
					continue;
				uint32_t n = __atomic_load_n(&b->n, __ATOMIC_RELAXED);
				if (!n || n > HW_BATCH_RECS) { /* never published so; skipped, not read past */
					hw_batch_ring_release(ring);
					continue;
				}
				r->next_ring = (r->next_ring + k + 1) % r->n_rings;
				r->held = ring;
				r->held_b = b;
				r->held_n = n;
				r->held_off = 0;
				return take(r, recs, max);
			}
			if (now >= r->next_check_ns)
				r->next_check_ns = now + CHECK_NS;
			if (done)
				detach(r);
		}
		if (!r->map && now >= r->next_try_ns) {
			char msg[320];
			int a = attach(r, msg, sizeof(msg));
			r->next_try_ns = now + (a < 0 ? RETRY_ERR_NS : RETRY_NS);
			if (a > 0)
				continue;
			if (a < 0 && strcmp(msg, r->last_err)) {
				snprintf(r->last_err, sizeof(r->last_err), "%s", msg);
				snprintf(err, errlen, "%s", msg);
				return -1;
			}
		}
		if (now >= deadline)
			return 0;
		uint64_t until = r->map ? r->next_check_ns : r->next_try_ns;
		sleep_until(r, until < deadline ? until : deadline, now);
		now = hw_mono_ns();
	}
}

unsigned hw_shm_reader_attached(const struct hw_shm_reader *r)
{
	return r->attached;
}

void hw_shm_reader_close(struct hw_shm_reader *r)
{
	if (!r)
		return;
	if (r->held && r->held_off >= r->held_n) /* every record of it was returned */
		hw_batch_ring_release(r->held);
	if (r->map)
		detach(r);
	free(r->path);
	free(r);
}
