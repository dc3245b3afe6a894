/* The checks a fabric operator wants from LLDP (MTU and PFC mismatches across a link, neighbours seen
 * from one side only) and the tier assignment that puts hosts, leaves, spines and super-spines in ranks. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hopwatch/topo.h"

static void pfc_text(uint8_t bits, char *buf, size_t size)
{
	size_t o = 0;
	buf[0] = '\0';
	for (unsigned p = 0; p < 8 && o + 3 < size; p++)
		if (bits & (1u << p))
			o += (size_t)snprintf(buf + o, size - o, o ? ",%u" : "%u", p);
	if (!o)
		snprintf(buf, size, "none");
}

void hw_topo_check(struct hw_topo *t)
{
	for (uint32_t i = 0; i < t->n_links; i++) {
		struct hw_topo_link *l = &t->links[i];
		if (!l->up)
			continue;
		const struct hw_topo_port *a = &t->ports[l->a], *b = &t->ports[l->b];
		if (a->max_frame && b->max_frame && a->max_frame != b->max_frame) {
			l->flags |= HW_LINK_MTU_MISMATCH;
			hw_topo_event(t, HW_EV_MTU_MISMATCH, l->last_seen, l->a, l->b,
			              "maximum frame size %u vs %u bytes", a->max_frame, b->max_frame);
		}
		if (a->has_pfc && b->has_pfc && a->pfc_enable != b->pfc_enable) {
			char pa[24], pb[24];
			pfc_text(a->pfc_enable, pa, sizeof(pa));
			pfc_text(b->pfc_enable, pb, sizeof(pb));
			l->flags |= HW_LINK_PFC_MISMATCH;
			hw_topo_event(t, HW_EV_PFC_MISMATCH, l->last_seen, l->a, l->b,
			              "PFC-enabled priorities %s vs %s", pa, pb);
		}
		/* One-sided only counts when we hold the silent side's own view. */
		uint32_t silent = !l->seen_by_a ? l->a : (!l->seen_by_b ? l->b : HW_TOPO_NONE);
		if (silent != HW_TOPO_NONE && t->nodes[t->ports[silent].node].observer) {
			uint32_t other = silent == l->a ? l->b : l->a;
			l->flags |= HW_LINK_ONE_SIDED;
			hw_topo_event(t, HW_EV_ONE_SIDED, l->last_seen, other, silent,
			              "%.100s sees %.100s, which does not see it back",
			              t->nodes[t->ports[other].node].name, t->nodes[t->ports[silent].node].name);
		}
	}
}

static int is_host(const struct hw_topo_node *n)
{
	return n->has_caps && !(n->cap_enabled & (HW_LLDP_CAP_BRIDGE | HW_LLDP_CAP_ROUTER));
}

/* HW_TIER_UNKNOWN when the name holds no hint. */
static unsigned tier_from_name(const char *name)
{
	static const struct {
		const char *word;
		unsigned tier;
	} hints[] = {{"super", HW_TIER_SUPERSPINE}, {"core", HW_TIER_SUPERSPINE}, {"spine", HW_TIER_SPINE},
	             {"agg", HW_TIER_SPINE},        {"leaf", HW_TIER_LEAF},       {"tor", HW_TIER_LEAF},
	             {"edge", HW_TIER_LEAF},        {"host", HW_TIER_HOST},       {"server", HW_TIER_HOST}};
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (strcasestr(name, hints[i].word))
			return hints[i].tier;
	return HW_TIER_UNKNOWN;
}

void hw_topo_assign_tiers(struct hw_topo *t)
{
	uint32_t *queue = malloc(((size_t)t->n_nodes + 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		struct hw_topo_node *n = &t->nodes[i];
		if (!n->tier_fixed)
			n->tier = is_host(n) ? HW_TIER_HOST : HW_TIER_UNKNOWN;
		if (n->tier == HW_TIER_HOST && queue)
			queue[tail++] = i;
	}
	/* Breadth first from the hosts over links that are up. */
	while (queue && head < tail) {
		uint32_t u = queue[head++];
		unsigned next = t->nodes[u].tier + 1;
		for (uint32_t p = t->nodes[u].first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
			uint32_t q = hw_topo_peer(t, p);
			if (q == HW_TOPO_NONE || !t->links[t->ports[p].link].up)
				continue;
			struct hw_topo_node *v = &t->nodes[t->ports[q].node];
			if (v->tier != HW_TIER_UNKNOWN || v->tier_fixed)
				continue;
			v->tier = (uint8_t)(next > HW_TIER_SUPERSPINE ? HW_TIER_SUPERSPINE : next);
			queue[tail++] = t->ports[q].node;
		}
	}
	free(queue);
	/* Distance alone cannot tell a leaf without hosts from a super-spine (both sit two hops above a
	 * leaf's hosts through the spines): beyond the leaves, a tier hint in the name wins. */
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		struct hw_topo_node *n = &t->nodes[i];
		unsigned hint = tier_from_name(n->name);
		if (n->tier_fixed || n->tier == HW_TIER_HOST || n->tier == HW_TIER_LEAF)
			continue;
		if (hint != HW_TIER_UNKNOWN && hint != HW_TIER_HOST)
			n->tier = (uint8_t)hint;
		else if (n->tier == HW_TIER_UNKNOWN)
			n->tier = HW_TIER_LEAF;
	}
}
