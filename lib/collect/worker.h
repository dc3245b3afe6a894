/* One collector worker: parses frames, keeps its own queue, sequence and flow state, and hands
 * records to the sink thread in batches.  Used by every front end (DPDK lcores, libpcap thread). */
#ifndef HOPWATCH_WORKER_H
#define HOPWATCH_WORKER_H

#include <signal.h>
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

/* A parsed report whose state updates wait for the end of the burst (hw_worker_apply). */
struct hw_pending_report {
	const struct hw_record *recs; /* its records, in the current batch or the scratch array */
	uint64_t time_ns;
	struct hw_report rep;
	uint64_t path_sig; /* its path's signature (lib/facts), worked out with its hops' queue places */
	uint32_t hop0;     /* its first hop's place in hw_worker.qhops */
	bool same_packet;  /* coalesced with the previous report: one sequence number for both */
	bool ports;        /* every hop carries its ports (hw_path_hops_have_ports) */
};
#define HW_PENDING_REPORTS 512 /* a burst of frames; applied early when fewer than 256 places are left */
/* Hops of the pending reports: applied early when a frame's worth (HW_BATCH_RECS) might not fit. */
#define HW_PENDING_HOPS (2 * HW_BATCH_RECS)

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
	/* The stop signal: a lossless wait then ends once the consumer has taken nothing for HW_STOP_WAIT_NS, and
	 * gave_up is set: later batches do not wait (hw_batch_ring_slot_wait). */
	const volatile sig_atomic_t *interrupt;
	bool gave_up;
	struct hw_batch *cur;
	struct hw_record scratch[HW_BATCH_RECS]; /* records nobody wants (no sink, or its ring full) */
	uint32_t scratch_n;                      /* records of pending reports in scratch */
	uint32_t n_pending;
	struct hw_report reps[256];
	struct hw_pending_report pending[HW_PENDING_REPORTS];
	uint32_t n_qhops;
	struct hw_queue_hop qhops[HW_PENDING_HOPS]; /* each pending hop's queue slot and buckets */
};

/* with_ring: create the batch ring (records are wanted by some sink). */
int hw_worker_init(struct hw_worker *w, uint32_t id, const struct hw_parser_config *pcfg,
                   const struct hw_worker_sizes *sz, bool with_ring, bool backpressure);
void hw_worker_free(struct hw_worker *w);
/* Process one received frame: hw_worker_stage then hw_worker_apply. */
void hw_worker_frame(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t time_ns);
/* A burst: parse each frame now (the frame's bytes are not kept) and count it ... */
void hw_worker_stage(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t time_ns);
/* ... then update the queue, sequence and flow state of every report staged since the last call, in
 * order, prefetching the table slots a few reports ahead (as rte_hash_lookup_bulk does), so that with
 * many flows and queues their cache misses overlap.  The result is the same as one hw_worker_frame per
 * frame.  Records reach the sink only after their state is applied (flush applies first). */
void hw_worker_apply(struct hw_worker *w);
/* Hand a partly filled batch to the sink (shutdown, a full batch). */
void hw_worker_flush(struct hw_worker *w);
/* No input for now: apply, and hand the partly filled batch to the sink only when the sink has taken
 * every batch before it.  While the sink is behind, later frames go on filling the same batch, so a
 * stalled sink holds a ring of full batches rather than one of a frame each (a 64-batch ring then
 * outlasts a stall of 64 x 1024 records, not of 64 frames). */
void hw_worker_idle(struct hw_worker *w);

/* Relaxed read of a counter another thread writes. */
#define HW_READ(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
/* Single-writer increment that readers may observe at any time. */
#define HW_ADD(x, v) __atomic_store_n(&(x), (x) + (v), __ATOMIC_RELAXED)

#endif
