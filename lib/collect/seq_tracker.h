/* Report sequence tracking per (report node, hw_id): lost, duplicate and reordered reports, with
 * 22-bit (TR v2.0) or 32-bit wrap.  This is how users learn that the telemetry path drops reports. */
#ifndef HOPWATCH_SEQ_TRACKER_H
#define HOPWATCH_SEQ_TRACKER_H

#include <stdint.h>

#include "facts.h"

struct hw_seq_state {
	uint32_t node;
	uint8_t hw_id;
	uint8_t bits;         /* sequence width */
	uint8_t used;         /* key set (written last) */
	struct hw_seq_fact f; /* highest number and reorder window (lib/facts) */
	uint64_t received, lost, duplicate, reordered;
};

struct hw_seq_tracker {
	struct hw_seq_state *slots;
	uint32_t mask, limit, n;
	uint64_t overflow;
};

int hw_seq_tracker_init(struct hw_seq_tracker *t, uint32_t capacity);
void hw_seq_tracker_free(struct hw_seq_tracker *t);
/* Account one report packet's sequence number (bits = 22 or 32; 0 = no sequence: ignored). */
void hw_seq_tracker_add(struct hw_seq_tracker *t, uint32_t node, uint8_t hw_id, uint32_t seq, unsigned bits);
/* Apply one sequence number to a state (exposed for tests). */
void hw_seq_apply(struct hw_seq_state *s, uint32_t seq);

#endif
