/* The live record stream on one host (shm:PATH): the collector's worker batch rings in one shared file that
 * the analyzer maps, so records reach it with no copy, no socket and no sink thread (docs/records.md). */
#ifndef HOPWATCH_STREAM_SHM_H
#define HOPWATCH_STREAM_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "batch_ring.h"

/* The file (native byte order and layout: both ends run on this host, from builds with the same record
 * layout, which the header names):
 *   bytes 0-4095: struct hw_shm_header;
 *   then n_rings rings of ring_bytes each: a 4 KiB page with the ring's struct hw_batch_ring_ctl, then
 *   ring_batches struct hw_batch slots, padded to a page.
 * The collector writes the file under a temporary name and renames it to PATH whole, mode 0600; the
 * analyzer holds an exclusive flock on it while it reads (one reader per file). */
#define HW_SHM_MAGIC 0x52535748u /* "HWSR" */
#define HW_SHM_VERSION 1

struct hw_shm_header {
	uint32_t magic; /* written last */
	uint16_t version;
	uint16_t record_size; /* sizeof(struct hw_record) */
	uint32_t batch_bytes; /* sizeof(struct hw_batch) */
	uint32_t batch_recs;  /* HW_BATCH_RECS */
	uint32_t n_rings;
	uint32_t ring_batches; /* a power of two */
	uint64_t ring_bytes;
	uint32_t pid;               /* the collector's */
	uint32_t closed;            /* the collector published its last batch */
	uint32_t reader_pid;        /* the attached analyzer's, 0 when none */
	_Alignas(64) uint32_t bell; /* the reader sleeps (futex) on it: 1 while it does (batch_ring.h) */
};

/* "shm:PATH" → PATH, else NULL. */
const char *hw_shm_path(const char *addr);
/* shm: takes no stream key: when addr is a shm: address and key_path is given, the message saying so (bad
 * usage, for every program that reads the stream), else NULL. */
const char *hw_shm_key_conflict(const char *addr, const char *key_path);

/* The collector's end: creates PATH (replacing a file there) with n_rings rings of ring_batches (rounded up to
 * a power of two, 2-65536) batches.  lossless: the rings start as if a reader were attached, so that a lossless
 * producer waits for the analyzer from the first batch on (until one has come and gone, or a stop).  NULL with
 * err naming PATH. */
struct hw_shm_writer;
struct hw_shm_writer *hw_shm_writer_create(const char *path, unsigned n_rings, uint32_t ring_batches, int lossless,
                                           char *err, size_t errlen);
/* Ring i, for one producer (a worker): its slots and indices are in the file. */
void hw_shm_writer_ring(struct hw_shm_writer *w, unsigned i, struct hw_batch_ring *r);
/* "stream shm:PATH (no analyzer attached)" while no live reader has the file, else NULL (any thread): for the
 * status line's peers down. */
const char *hw_shm_writer_down(const struct hw_shm_writer *w);
/* Records the reader has taken so far, over every ring (any thread). */
uint64_t hw_shm_writer_taken(const struct hw_shm_writer *w);
/* The end, after the producers' last publish: marks the file closed, waits for an attached reader to take
 * what is published (while it takes some every wait_ms), removes PATH (if it is still this file) and frees w.
 * Returns the records the reader did not take (a reader still attached goes on reading them from its mapping);
 * *taken (unless NULL) gets those it took, hw_shm_writer_taken's count at the end: the two add up to every
 * record published. */
uint64_t hw_shm_writer_close(struct hw_shm_writer *w, int wait_ms, uint64_t *taken);

/* For checks (hopwatch-analyzer diagnose): reads PATH's header without mapping or locking it.  0 with the
 * collector's pid and the attached reader's (0: none; a pid that is gone is reported as 0), -1 with err naming
 * PATH and what is wrong (missing, not a ring file, another layout). */
int hw_shm_probe(const char *path, uint32_t *collector_pid, uint32_t *reader_pid, char *err, size_t errlen);

/* The analyzer's end: follows PATH as collectors come and go (none there yet, closed, or gone and replaced). */
struct hw_shm_reader;
struct hw_shm_reader *hw_shm_reader_open(const char *path, char *err, size_t errlen);
/* Up to max records of the next published batch, in place in the file (valid until the next call, which
 * gives the batch back once all of it was returned); 0 after timeout_ms with none; -1 with err naming PATH
 * when a file there cannot be read (bad layout, another reader): it is tried again after a second, and the
 * same message is not given twice in a row.  Rings are served in turn. */
long hw_shm_reader_next(struct hw_shm_reader *r, const struct hw_record **recs, size_t max, int timeout_ms, char *err,
                        size_t errlen);
/* Files attached so far (one per collector run). */
unsigned hw_shm_reader_attached(const struct hw_shm_reader *r);
void hw_shm_reader_close(struct hw_shm_reader *r);

#endif
