/* Sequence-gap accounting per sender, by lib/facts' hw_seq_update: a forward jump counts the skipped
 * numbers as lost; a number behind the highest seen is a duplicate when already seen (64-report window),
 * otherwise a late arrival that was counted lost and is now reordered. */
#include <stdlib.h>

#include "seq_tracker.h"
#include "table_size.h"

int hw_seq_tracker_init(struct hw_seq_tracker *t, uint32_t capacity)
{
	uint32_t cap = hw_pow2_at_least(capacity, 16, 1u << 28);
	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots)
		return -1;
	t->mask = cap - 1;
	t->limit = hw_table_limit(cap);
	t->n = 0;
	t->overflow = 0;
	return 0;
}

void hw_seq_tracker_free(struct hw_seq_tracker *t)
{
	free(t->slots);
	t->slots = NULL;
}

void hw_seq_apply(struct hw_seq_state *s, uint32_t seq)
{
	s->received++;
	const struct hw_seq_step st = hw_seq_update(&s->f, seq, hw_seq_mask(s->bits));
	switch (st.kind) {
	case HW_SEQ_NEXT: s->lost += st.lost; break;
	case HW_SEQ_LATE:
		s->reordered++;
		if (s->lost)
			s->lost--; /* it was counted lost when the jump passed it */
		break;
	case HW_SEQ_TOO_LATE:
		s->reordered++; /* too late to tell; counted lost already */
		break;
	case HW_SEQ_DUPLICATE: s->duplicate++; break;
	case HW_SEQ_FIRST: break;
	}
}

static inline uint32_t key_hash(uint32_t node, uint8_t hw_id)
{
	return (uint32_t)((((uint64_t)node << 8) | hw_id) * 0x9e3779b97f4a7c15ull >> 32);
}

void hw_seq_tracker_add(struct hw_seq_tracker *t, uint32_t node, uint8_t hw_id, uint32_t seq, unsigned bits)
{
	if (!bits)
		return;
	uint32_t i = key_hash(node, hw_id) & t->mask;
	for (;;) {
		struct hw_seq_state *s = &t->slots[i];
		if (!s->used) {
			if (t->n >= t->limit) {
				t->overflow++;
				return;
			}
			s->node = node;
			s->hw_id = hw_id;
			s->bits = (uint8_t)bits;
			__atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
			t->n++;
			hw_seq_apply(s, seq);
			return;
		}
		if (s->node == node && s->hw_id == hw_id) {
			hw_seq_apply(s, seq);
			return;
		}
		i = (i + 1) & t->mask;
	}
}
