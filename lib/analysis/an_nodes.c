/* The queues of each switch: an index of the queue table by node (a placed queue's topology node, and any
 * queue's INT node id), kept as queues are added, so a look at one switch's queues skips the rest. */
#include <stdlib.h>

#include "an_internal.h"

/* A key's slot: (kind << 32 | node) + 1 in keys, 0 = empty; open addressing, at most 2 keys a queue in at least
 * 4 slots a queue, so a probe always ends. */
static uint32_t slot_of(const struct an_nodes *n, uint64_t key, int *found)
{
	uint32_t h = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32);
	for (;; h++) {
		const uint32_t s = h & n->mask;
		if (n->keys[s] == key + 1 || !n->keys[s]) {
			*found = n->keys[s] != 0;
			return s;
		}
	}
}

int an_nodes_init(struct an_nodes *n, uint32_t max_queues)
{
	const uint64_t queues = max_queues ? max_queues : 1;
	uint64_t slots = 16;
	while (slots < 4 * queues)
		slots <<= 1;
	if (slots > UINT32_MAX)
		return -1;
	n->mask = (uint32_t)(slots - 1);
	n->keys = calloc(slots, sizeof(*n->keys));
	n->first = calloc(slots, sizeof(*n->first));
	n->last = calloc(slots, sizeof(*n->last));
	n->next[AN_NODE_TOPO] = calloc(queues, sizeof(uint32_t));
	n->next[AN_NODE_ID] = calloc(queues, sizeof(uint32_t));
	return n->keys && n->first && n->last && n->next[AN_NODE_TOPO] && n->next[AN_NODE_ID] ? 0 : -1;
}

void an_nodes_free(struct an_nodes *n)
{
	free(n->keys);
	free(n->first);
	free(n->last);
	free(n->next[AN_NODE_TOPO]);
	free(n->next[AN_NODE_ID]);
}

/* Queue index qi at the end of node's list of kind k: the lists stay in table order (queues are added in it). */
static void append(struct an_nodes *n, enum an_node_kind k, uint32_t node, uint32_t qi)
{
	const uint64_t key = (uint64_t)k << 32 | node;
	int found;
	const uint32_t s = slot_of(n, key, &found);
	if (found) {
		n->next[k][n->last[s] - 1] = qi + 1;
	} else {
		n->keys[s] = key + 1;
		n->first[s] = qi + 1;
	}
	n->last[s] = qi + 1;
}

void an_nodes_add(struct hw_analyzer *a, uint32_t qi)
{
	const struct an_queue *q = &a->queues[qi];
	append(&a->nodes, AN_NODE_ID, q->node_id, qi);
	if (q->placed)
		append(&a->nodes, AN_NODE_TOPO, a->topo->ports[q->topo_port].node, qi);
}

uint32_t an_node_first(const struct hw_analyzer *a, enum an_node_kind k, uint32_t node)
{
	int found;
	const uint32_t s = slot_of(&a->nodes, (uint64_t)k << 32 | node, &found);
	return found ? a->nodes.first[s] : 0;
}
