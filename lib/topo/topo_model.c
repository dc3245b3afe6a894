/* The topology model: nodes keyed by chassis ID, ports keyed by port ID or interface name, links between
 * ports, and the events their changes raise (LinkUp, LinkDown, NeighborChanged, LinkDisappeared, ...). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/topo.h"

static const char *const result_names[] = {
#define HW_TOPO_X_NAME(e, n, m) n,
    HW_TOPO_RESULT_LIST(HW_TOPO_X_NAME)
#undef HW_TOPO_X_NAME
};

const char *hw_topo_result_name(enum hw_topo_result r)
{
	return (unsigned)r < HW_TOPO_RESULT_COUNT ? result_names[r] : "invalid";
}

enum hw_topo_result hw_topo_fail(struct hw_topo_error *err, enum hw_topo_result code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

static const char *const event_names[] = {
#define HW_TOPO_X_EVNAME(e, n) n,
    HW_TOPO_EVENT_LIST(HW_TOPO_X_EVNAME)
#undef HW_TOPO_X_EVNAME
};

const char *hw_topo_event_name(enum hw_topo_event_kind k)
{
	return (unsigned)k < HW_EV_COUNT ? event_names[k] : "Invalid";
}

const char *hw_topo_tier_name(unsigned tier)
{
	static const char *const n[] = {"host", "leaf", "spine", "superspine"};
	return tier < 4 ? n[tier] : "unknown";
}

void hw_topo_init(struct hw_topo *t)
{
	memset(t, 0, sizeof(*t));
}

void hw_topo_free(struct hw_topo *t)
{
	free(t->nodes);
	free(t->ports);
	free(t->links);
	free(t->events);
	free(t->node_hash);
	memset(t, 0, sizeof(*t));
}

/* Grow an array of `size`-byte elements so that one more fits.  0 when out of memory. */
static int grow(void **arr, uint32_t *cap, uint32_t n, size_t size)
{
	if (n < *cap)
		return 1;
	uint32_t c = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, (size_t)c * size);
	if (!p)
		return 0;
	*arr = p;
	*cap = c;
	return 1;
}

/* Copy a string, cutting it to fit. */
static void copy(char *dst, const char *src, size_t size)
{
	size_t n = src ? strnlen(src, size - 1) : 0;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* ---- node index: open addressing over the chassis ID ---- */

static uint32_t hash_key(uint8_t subtype, const char *id)
{
	uint32_t h = 2166136261u ^ subtype;
	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static int rehash(struct hw_topo *t, uint32_t size)
{
	uint32_t *h = calloc(size, sizeof(*h));
	if (!h)
		return 0;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		uint32_t k = hash_key(t->nodes[i].chassis_subtype, t->nodes[i].chassis_id) & (size - 1);
		while (h[k])
			k = (k + 1) & (size - 1);
		h[k] = i + 1;
	}
	free(t->node_hash);
	t->node_hash = h;
	t->hash_size = size;
	return 1;
}

static uint32_t find_node(const struct hw_topo *t, uint8_t subtype, const char *id)
{
	if (!t->hash_size)
		return HW_TOPO_NONE;
	uint32_t k = hash_key(subtype, id) & (t->hash_size - 1);
	for (; t->node_hash[k]; k = (k + 1) & (t->hash_size - 1)) {
		const struct hw_topo_node *n = &t->nodes[t->node_hash[k] - 1];
		if (n->chassis_subtype == subtype && strcmp(n->chassis_id, id) == 0)
			return t->node_hash[k] - 1;
	}
	return HW_TOPO_NONE;
}

static uint32_t add_node(struct hw_topo *t, uint8_t subtype, const char *id, double time)
{
	if (!grow((void **)&t->nodes, &t->cap_nodes, t->n_nodes, sizeof(*t->nodes)))
		return HW_TOPO_NONE;
	if ((t->n_nodes + 1) * 2 > t->hash_size && !rehash(t, t->hash_size ? t->hash_size * 2 : 64))
		return HW_TOPO_NONE;
	uint32_t i = t->n_nodes++;
	struct hw_topo_node *n = &t->nodes[i];
	memset(n, 0, sizeof(*n));
	n->chassis_subtype = subtype;
	copy(n->chassis_id, id, sizeof(n->chassis_id));
	copy(n->name, id, sizeof(n->name));
	n->tier = HW_TIER_UNKNOWN;
	n->first_seen = n->last_seen = time;
	n->first_port = HW_TOPO_NONE;
	uint32_t k = hash_key(subtype, id) & (t->hash_size - 1);
	while (t->node_hash[k])
		k = (k + 1) & (t->hash_size - 1);
	t->node_hash[k] = i + 1;
	return i;
}

/* Two live systems advertise one chassis ID: one event per pair of names. */
static void duplicate_chassis(struct hw_topo *t, uint32_t node, const char *other, double time)
{
	const char *name = t->nodes[node].name;
	for (uint32_t k = 0; k < t->n_events; k++) {
		const struct hw_topo_event *e = &t->events[k];
		if (e->kind == HW_EV_DUPLICATE_CHASSIS && strcmp(e->a_node, name) == 0 && strcmp(e->b_node, other) == 0)
			return;
	}
	hw_topo_event_named(t, HW_EV_DUPLICATE_CHASSIS, time, name, "", other, "",
	                    "chassis ID %.200s is advertised by two systems", t->nodes[node].chassis_id);
}

uint32_t hw_topo_node_of(struct hw_topo *t, const struct hw_lldp_info *info, double time)
{
	uint32_t i = find_node(t, info->chassis.subtype, info->chassis.text);
	int fresh = i == HW_TOPO_NONE;
	if (fresh && (i = add_node(t, info->chassis.subtype, info->chassis.text, time)) == HW_TOPO_NONE)
		return HW_TOPO_NONE;
	struct hw_topo_node *n = &t->nodes[i];
	if (info->has & HW_LLDP_HAS_SYS_NAME && info->sys_name[0]) {
		int named = strcmp(n->name, n->chassis_id) != 0;
		if (!fresh && named && strcmp(n->name, info->sys_name) != 0 && n->expires >= time && info->ttl) {
			duplicate_chassis(t, i, info->sys_name, time);
		} else {
			copy(n->name, info->sys_name, sizeof(n->name));
		}
	}
	if (info->has & HW_LLDP_HAS_SYS_DESCR)
		copy(n->descr, info->sys_descr, sizeof(n->descr));
	if (info->has & HW_LLDP_HAS_CAPABILITIES) {
		n->has_caps = 1;
		n->cap_system = info->cap_system;
		n->cap_enabled = info->cap_enabled;
	}
	if (info->n_mgmt) {
		n->n_mgmt = 0;
		n->mgmt_v4 = 0;
		for (unsigned k = 0; k < info->n_mgmt && k < HW_LLDP_MGMT_MAX; k++) {
			const struct hw_lldp_mgmt *m = &info->mgmt[k];
			copy(n->mgmt[n->n_mgmt++], m->text, sizeof(n->mgmt[0]));
			if (m->family == 1 && !n->mgmt_v4)
				n->mgmt_v4 = (uint32_t)m->addr[0] << 24 | (uint32_t)m->addr[1] << 16 |
				             (uint32_t)m->addr[2] << 8 | m->addr[3];
		}
	}
	if (time > n->last_seen)
		n->last_seen = time;
	if (info->ttl && time + info->ttl > n->expires)
		n->expires = time + info->ttl;
	return i;
}

/* ---- ports ---- */

/* The interface name an advertisement gives its port: the port ID when it is an interface name or a
 * locally assigned string, else the port description (lldpd puts the interface name there), else the ID
 * (*fallback set: a shutdown LLDPDU carries no description, and must not rename a known port). */
static const char *port_name_of(const struct hw_lldp_info *info, int *fallback)
{
	uint8_t s = info->port.subtype;
	*fallback = 0;
	if (s == HW_LLDP_PORT_IFNAME || s == HW_LLDP_PORT_LOCAL || s == HW_LLDP_PORT_IFALIAS)
		return info->port.text;
	if (info->has & HW_LLDP_HAS_PORT_DESCR && info->port_descr[0])
		return info->port_descr;
	*fallback = 1;
	return info->port.text;
}

static uint32_t add_port(struct hw_topo *t, uint32_t node)
{
	if (!grow((void **)&t->ports, &t->cap_ports, t->n_ports, sizeof(*t->ports)))
		return HW_TOPO_NONE;
	uint32_t i = t->n_ports++;
	struct hw_topo_port *p = &t->ports[i];
	memset(p, 0, sizeof(*p));
	p->node = node;
	p->link = HW_TOPO_NONE;
	p->next = t->nodes[node].first_port;
	t->nodes[node].first_port = i;
	return i;
}

uint32_t hw_topo_find_port_by_name(const struct hw_topo *t, uint32_t node, const char *ifname)
{
	if (node >= t->n_nodes || !ifname || !ifname[0])
		return HW_TOPO_NONE;
	for (uint32_t p = t->nodes[node].first_port; p != HW_TOPO_NONE; p = t->ports[p].next)
		if (strcmp(t->ports[p].name, ifname) == 0)
			return p;
	return HW_TOPO_NONE;
}

static uint32_t find_port_by_id(const struct hw_topo *t, uint32_t node, uint8_t subtype, const char *id)
{
	for (uint32_t p = t->nodes[node].first_port; p != HW_TOPO_NONE; p = t->ports[p].next)
		if (t->ports[p].id_subtype == subtype && strcmp(t->ports[p].id, id) == 0)
			return p;
	return HW_TOPO_NONE;
}

uint32_t hw_topo_local_port(struct hw_topo *t, uint32_t node, const char *ifname, double time)
{
	uint32_t p = hw_topo_find_port_by_name(t, node, ifname);
	if (p == HW_TOPO_NONE) {
		if ((p = add_port(t, node)) == HW_TOPO_NONE)
			return p;
		copy(t->ports[p].name, ifname, sizeof(t->ports[p].name));
		copy(t->ports[p].id, ifname, sizeof(t->ports[p].id));
		t->ports[p].learned = time;
	}
	return p;
}

uint32_t hw_topo_advertise(struct hw_topo *t, const struct hw_lldp_info *info, double time)
{
	uint32_t node = hw_topo_node_of(t, info, time);
	if (node == HW_TOPO_NONE)
		return node;
	int fallback;
	const char *name = port_name_of(info, &fallback);
	uint32_t p = find_port_by_id(t, node, info->port.subtype, info->port.text);
	if (p == HW_TOPO_NONE)
		p = hw_topo_find_port_by_name(t, node, name);
	if (p == HW_TOPO_NONE && (p = add_port(t, node)) == HW_TOPO_NONE)
		return p;
	struct hw_topo_port *pt = &t->ports[p];
	pt->id_subtype = info->port.subtype;
	copy(pt->id, info->port.text, sizeof(pt->id));
	if (!fallback || !pt->name[0])
		copy(pt->name, name, sizeof(pt->name));
	if (info->has & HW_LLDP_HAS_PORT_DESCR)
		copy(pt->descr, info->port_descr, sizeof(pt->descr));
	if (info->has & HW_LLDP_HAS_MAX_FRAME)
		pt->max_frame = info->max_frame;
	if (info->has & HW_LLDP_HAS_PFC) {
		pt->has_pfc = 1;
		pt->pfc_enable = info->pfc_enable;
	}
	if (info->has & HW_LLDP_HAS_LINK_AGG) {
		pt->has_agg = 1;
		pt->agg_status = info->agg_status;
		pt->agg_port_id = info->agg_port_id;
	}
	if (info->has & HW_LLDP_HAS_PORT_VLAN)
		pt->port_vlan = info->port_vlan;
	pt->learned = time;
	pt->expires = time + info->ttl;
	return p;
}

/* ---- links and events ---- */

static struct hw_topo_event *add_event(struct hw_topo *t, enum hw_topo_event_kind kind, double time, const char *fmt,
                                       va_list ap)
{
	if (!grow((void **)&t->events, &t->cap_events, t->n_events, sizeof(*t->events)))
		return NULL;
	struct hw_topo_event *e = &t->events[t->n_events++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->time = time;
	vsnprintf(e->detail, sizeof(e->detail), fmt, ap);
	return e;
}

void hw_topo_event(struct hw_topo *t, enum hw_topo_event_kind kind, double time, uint32_t port_a, uint32_t port_b,
                   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct hw_topo_event *e = add_event(t, kind, time, fmt, ap);
	va_end(ap);
	if (e && port_a != HW_TOPO_NONE) {
		copy(e->a_node, t->nodes[t->ports[port_a].node].name, sizeof(e->a_node));
		copy(e->a_port, t->ports[port_a].name, sizeof(e->a_port));
	}
	if (e && port_b != HW_TOPO_NONE) {
		copy(e->b_node, t->nodes[t->ports[port_b].node].name, sizeof(e->b_node));
		copy(e->b_port, t->ports[port_b].name, sizeof(e->b_port));
	}
}

void hw_topo_event_named(struct hw_topo *t, enum hw_topo_event_kind kind, double time, const char *a_node,
                         const char *a_port, const char *b_node, const char *b_port, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct hw_topo_event *e = add_event(t, kind, time, fmt, ap);
	va_end(ap);
	if (!e)
		return;
	copy(e->a_node, a_node, sizeof(e->a_node));
	copy(e->a_port, a_port, sizeof(e->a_port));
	copy(e->b_node, b_node, sizeof(e->b_node));
	copy(e->b_port, b_port, sizeof(e->b_port));
}

uint32_t hw_topo_peer(const struct hw_topo *t, uint32_t p)
{
	if (p >= t->n_ports || t->ports[p].link == HW_TOPO_NONE)
		return HW_TOPO_NONE;
	const struct hw_topo_link *l = &t->links[t->ports[p].link];
	return l->a == p ? l->b : l->a;
}

static int link_joins(const struct hw_topo_link *l, uint32_t x, uint32_t y)
{
	return (l->a == x && l->b == y) || (l->a == y && l->b == x);
}

/* Detach port p from its current link when that link does not join p and q (neighbour changed). */
static void detach_other(struct hw_topo *t, uint32_t p, uint32_t q, double time)
{
	uint32_t li = t->ports[p].link;
	if (li == HW_TOPO_NONE || link_joins(&t->links[li], p, q))
		return;
	struct hw_topo_link *l = &t->links[li];
	uint32_t old = l->a == p ? l->b : l->a;
	if (l->up) {
		char was[2 * HW_TOPO_NAME_MAX + 2];
		snprintf(was, sizeof(was), "%s.%s", t->nodes[t->ports[old].node].name, t->ports[old].name);
		hw_topo_event(t, HW_EV_NEIGHBOR_CHANGED, time, p, q, "neighbour was %.200s", was);
		l->up = 0;
	}
	t->ports[p].link = HW_TOPO_NONE;
	if (t->ports[old].link == li)
		t->ports[old].link = HW_TOPO_NONE;
}

void hw_topo_observe(struct hw_topo *t, uint32_t local, uint32_t remote_port, uint16_t ttl, double time)
{
	if (local == HW_TOPO_NONE || remote_port == HW_TOPO_NONE || local == remote_port)
		return;
	t->nodes[t->ports[local].node].observer = 1;
	detach_other(t, local, remote_port, time);
	detach_other(t, remote_port, local, time);
	uint32_t li = t->ports[local].link;
	if (li == HW_TOPO_NONE)
		li = t->ports[remote_port].link;
	if (li == HW_TOPO_NONE) {
		if (!ttl)
			return; /* a goodbye from a neighbour we never knew */
		if (!grow((void **)&t->links, &t->cap_links, t->n_links, sizeof(*t->links)))
			return;
		li = t->n_links++;
		memset(&t->links[li], 0, sizeof(t->links[li]));
		t->links[li].a = local;
		t->links[li].b = remote_port;
		t->links[li].first_seen = time;
	}
	struct hw_topo_link *l = &t->links[li];
	t->ports[local].link = t->ports[remote_port].link = li;
	if (l->a == local)
		l->seen_by_a = 1;
	else
		l->seen_by_b = 1;
	if (!ttl) {
		if (l->up)
			hw_topo_event(t, HW_EV_LINK_DOWN, time, local, remote_port, "neighbour sent TTL 0 (leaving)");
		l->up = 0;
		l->flags |= HW_LINK_GONE;
		l->expires = time;
		return;
	}
	if (!l->up) {
		l->up = 1;
		l->flags &= ~(uint32_t)HW_LINK_GONE;
		hw_topo_event(t, HW_EV_LINK_UP, time, local, remote_port, "ttl %u s", ttl);
	}
	l->last_seen = time;
	double *side = l->a == local ? &l->expires_a : &l->expires_b;
	if (time + ttl > *side)
		*side = time + ttl;
	if (l->seen_by_a && l->seen_by_b)
		l->expires = l->expires_a < l->expires_b ? l->expires_a : l->expires_b;
	else
		l->expires = l->seen_by_a ? l->expires_a : l->expires_b;
}

void hw_topo_expire_link(struct hw_topo *t, uint32_t link, double now)
{
	struct hw_topo_link *l = &t->links[link];
	if (l->up && l->expires < now) {
		l->up = 0;
		l->flags |= HW_LINK_GONE;
		hw_topo_event(t, HW_EV_LINK_DISAPPEARED, now, l->a, l->b, "no advertisement since %.3f (expired %.3f)",
		              l->last_seen, l->expires);
	}
}

void hw_topo_expire(struct hw_topo *t, double now)
{
	for (uint32_t i = 0; i < t->n_links; i++)
		hw_topo_expire_link(t, i, now);
}

uint32_t hw_topo_links_up(const struct hw_topo *t)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->n_links; i++)
		n += t->links[i].up;
	return n;
}

uint32_t hw_topo_find_node_by_name(const struct hw_topo *t, const char *name)
{
	for (uint32_t i = 0; i < t->n_nodes; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return i;
	return HW_TOPO_NONE;
}

uint32_t hw_topo_find_node_by_id(const struct hw_topo *t, uint32_t node_id)
{
	for (uint32_t i = 0; node_id && i < t->n_nodes; i++)
		if (t->nodes[i].node_id == node_id)
			return i;
	return HW_TOPO_NONE;
}
