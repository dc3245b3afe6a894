/* One collector worker: parses frames, keeps its own queue, sequence and flow state, and hands
 * records to the sink thread in batches.  Used by every front end (DPDK lcores, libpcap thread). */
#ifndef HOPWATCH_WORKER_H
#define HOPWATCH_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch_ring.h"
#include "flow_table.h"
#include "hopwatch/wire.h"
#include "queue_table.h"
#include "seq_tracker.h"

/* Counters of one worker.  Written only by the worker; read by others with relaxed loads. */
struct hw_worker_counters {
	uint64_t packets;                    /* received = sum of by_result[] */
	uint64_t by_result[HW_RESULT_COUNT]; /* outcome of every packet, HW_OK = parsed */
	uint64_t reports;
	uint64_t records;
	uint64_t sink_dropped; /* records dropped because the sink ring was full */
	uint64_t path_changes;
};

struct hw_worker_sizes {
	uint32_t queues;  /* (node, port, queue) keys */
	uint32_t senders; /* (node, hw_id) keys */
	uint32_t flows;   /* flows whose path is tracked */
	uint32_t ring_batches;
};

struct hw_worker {
	uint32_t id;
	struct hw_parser_config pcfg;
	struct hw_worker_counters cnt;
	struct hw_queue_table queues;
	struct hw_seq_tracker seqs;
	struct hw_flow_table flows;
	struct hw_batch_ring ring;
	bool has_ring;       /* records go to a sink thread */
	bool backpressure;   /* wait for the sink instead of dropping (offline input) */
	volatile bool *stop; /* set by the owner to end a backpressure wait */
	struct hw_batch *cur;
	struct hw_record scratch[HW_BATCH_RECS];
	struct hw_report reps[256];
};

/* with_ring: create the batch ring (records are wanted by some sink). */
int hw_worker_init(struct hw_worker *w, uint32_t id, const struct hw_parser_config *pcfg,
                   const struct hw_worker_sizes *sz, bool with_ring, bool backpressure);
void hw_worker_free(struct hw_worker *w);
/* Process one received frame. */
void hw_worker_frame(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t time_ns);
/* Hand a partly filled batch to the sink (end of a burst, idle, shutdown). */
void hw_worker_flush(struct hw_worker *w);

/* Relaxed read of a counter another thread writes. */
#define HW_READ(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
/* Single-writer increment that readers may observe at any time. */
#define HW_ADD(x, v) __atomic_store_n(&(x), (x) + (v), __ATOMIC_RELAXED)

#endif
