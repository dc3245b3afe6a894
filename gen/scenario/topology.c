/* Scenario fabrics: leaf-spine and k-ary fat-tree, node ids = management addresses, port numbering,
 * link speeds per tier, and routing with ECMP over the up links by a per-switch 5-tuple hash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "scen.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

void sc_ip_text(uint32_t ip, char *out, size_t len)
{
	snprintf(out, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

static int alloc(struct sc_topo *t, uint32_t nodes, uint32_t links, char *err, size_t errlen)
{
	t->nodes = calloc(nodes, sizeof(*t->nodes));
	t->ports = calloc((size_t)links * 2, sizeof(*t->ports));
	t->links = calloc(links, sizeof(*t->links));
	if (t->nodes && t->ports && t->links)
		return 0;
	snprintf(err, errlen, "out of memory");
	return -1;
}

static uint32_t add_node(struct sc_topo *t, const char *name, uint32_t id, unsigned tier, unsigned pod, unsigned idx,
                         unsigned n_ports)
{
	struct sc_node *n = &t->nodes[t->n_nodes];
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->id = id;
	n->tier = (uint8_t)tier;
	n->pod = (uint8_t)pod;
	n->idx = (uint16_t)idx;
	n->port0 = t->n_ports;
	n->n_ports = (uint16_t)n_ports;
	uint8_t mac[6] = {0x02, (uint8_t)(id >> 24), (uint8_t)(id >> 16), (uint8_t)(id >> 8), (uint8_t)id, 0};
	memcpy(n->mac, mac, 6);
	for (unsigned i = 0; i < n_ports; i++) {
		struct sc_port *p = &t->ports[t->n_ports++];
		p->node = t->n_nodes;
		p->num = (uint16_t)(i + 1);
		p->peer = UINT32_MAX;
		p->link = UINT32_MAX;
		p->mtu = t->mtu;
		p->pfc = 1u << SC_Q_ROCE;
		p->up = 1;
	}
	return t->n_nodes++;
}

/* Connect port number pa of node a (lower tier) with port number pb of node b. */
static void connect(struct sc_topo *t, uint32_t a, unsigned pa, uint32_t b, unsigned pb, uint64_t bps)
{
	uint32_t x = t->nodes[a].port0 + pa - 1, y = t->nodes[b].port0 + pb - 1;
	t->ports[x].peer = y;
	t->ports[y].peer = x;
	t->ports[x].bps = t->ports[y].bps = bps;
	t->ports[x].link = t->ports[y].link = t->n_links;
	t->links[t->n_links].a = x;
	t->links[t->n_links].b = y;
	t->n_links++;
}

/* Hosts: `per` under each of `leaves` leaves (nodes leaf0...), host i on leaf port i + 1, eth0. */
static void add_hosts(struct sc_topo *t, uint32_t leaf0, unsigned leaves, unsigned per)
{
	char name[SC_NAME_MAX];
	t->first_host = t->n_nodes;
	t->n_hosts = leaves * per;
	for (unsigned l = 0; l < leaves; l++)
		for (unsigned h = 0; h < per; h++) {
			snprintf(name, sizeof(name), "host%u", l * per + h + 1);
			uint32_t n = add_node(t, name, IP4(10, 0, l + 1, h + 1), SC_HOST, t->nodes[leaf0 + l].pod,
			                      l * per + h, 1);
			connect(t, n, 1, leaf0 + l, h + 1, t->host_bps);
		}
}

static int check_host_count(unsigned leaves, unsigned hosts, char *err, size_t errlen)
{
	if ((uint64_t)leaves * hosts > 60000) {
		snprintf(err, errlen, "%u hosts is more than the address plan holds (60000)", leaves * hosts);
		return -1;
	}
	return 0;
}

int sc_topo_leaf_spine(struct sc_topo *t, unsigned spines, unsigned leaves, unsigned hosts, char *err, size_t errlen)
{
	if (spines < 1 || spines > 254 || leaves < 1 || leaves > 254 || hosts < 1 || hosts > 254) {
		snprintf(err, errlen, "leaf-spine:%u,%u,%u: spines, leaves and hosts per leaf must each be 1-254",
		         spines, leaves, hosts);
		return -1;
	}
	if (check_host_count(leaves, hosts, err, errlen))
		return -1;
	t->kind = SC_LEAF_SPINE;
	t->spines = spines, t->leaves = leaves, t->hosts_per_leaf = hosts;
	uint32_t nodes = spines + leaves + leaves * hosts, links = leaves * spines + leaves * hosts;
	if (alloc(t, nodes, links, err, errlen))
		return -1;
	char name[SC_NAME_MAX];
	for (unsigned s = 0; s < spines; s++) {
		snprintf(name, sizeof(name), "spine%u", s + 1);
		add_node(t, name, IP4(10, 255, 0, s + 1), SC_SPINE, 0, s, leaves);
	}
	for (unsigned l = 0; l < leaves; l++) {
		snprintf(name, sizeof(name), "leaf%u", l + 1);
		add_node(t, name, IP4(10, 255, 1, l + 1), SC_LEAF, 0, l, hosts + spines);
	}
	add_hosts(t, spines, leaves, hosts);
	for (unsigned l = 0; l < leaves; l++)
		for (unsigned s = 0; s < spines; s++)
			connect(t, spines + l, hosts + s + 1, s, l + 1, t->fabric_bps);
	return 0;
}

int sc_topo_fat_tree(struct sc_topo *t, unsigned k, char *err, size_t errlen)
{
	if (k < 2 || k > 22 || k % 2) {
		snprintf(err, errlen, "fat-tree:%u: k must be even, 2-22 (aggregation switches are 10.255.2.1-254)", k);
		return -1;
	}
	const unsigned h = k / 2, cores = h * h, aggs = k * h, edges = k * h;
	t->kind = SC_FAT_TREE;
	t->k = k;
	t->spines = aggs, t->leaves = edges, t->hosts_per_leaf = h;
	uint32_t nodes = cores + aggs + edges + edges * h, links = edges * h + edges * h + aggs * h;
	if (alloc(t, nodes, links, err, errlen))
		return -1;
	char name[SC_NAME_MAX];
	for (unsigned c = 0; c < cores; c++) {
		snprintf(name, sizeof(name), "core%u", c + 1);
		add_node(t, name, IP4(10, 255, 0, c + 1), SC_CORE, 0, c, k);
	}
	for (unsigned a = 0; a < aggs; a++) {
		snprintf(name, sizeof(name), "agg%u-%u", a / h + 1, a % h + 1);
		add_node(t, name, IP4(10, 255, 2, a + 1), SC_SPINE, a / h, a, k);
	}
	for (unsigned e = 0; e < edges; e++) {
		snprintf(name, sizeof(name), "edge%u-%u", e / h + 1, e % h + 1);
		add_node(t, name, IP4(10, 255, 1, e + 1), SC_LEAF, e / h, e, k);
	}
	const uint32_t agg0 = cores, edge0 = cores + aggs;
	add_hosts(t, edge0, edges, h);
	for (unsigned e = 0; e < edges; e++)
		for (unsigned a = 0; a < h; a++) /* edge port h+1+a to agg a of its pod, agg port (e%h)+1 */
			connect(t, edge0 + e, h + a + 1, agg0 + (e / h) * h + a, e % h + 1, t->fabric_bps);
	for (unsigned a = 0; a < aggs; a++) /* agg j of a pod: port h+1+c to core j*h+c, core port pod+1 */
		for (unsigned c = 0; c < h; c++)
			connect(t, agg0 + a, h + c + 1, (a % h) * h + c, a / h + 1, t->fabric_bps);
	return 0;
}

void sc_topo_free(struct sc_topo *t)
{
	free(t->nodes);
	free(t->ports);
	free(t->links);
	memset(t, 0, sizeof(*t));
}

int32_t sc_topo_find_node(const struct sc_topo *t, const char *name)
{
	for (uint32_t i = 0; i < t->n_nodes; i++)
		if (!strcmp(t->nodes[i].name, name))
			return (int32_t)i;
	return -1;
}

int32_t sc_topo_port_to(const struct sc_topo *t, uint32_t n, uint32_t m)
{
	const struct sc_node *a = &t->nodes[n];
	for (uint32_t p = a->port0; p < a->port0 + a->n_ports; p++)
		if (t->ports[p].peer != UINT32_MAX && t->ports[t->ports[p].peer].node == m)
			return (int32_t)p;
	return -1;
}

void sc_port_name(const struct sc_topo *t, uint32_t port, char *out, size_t len)
{
	const struct sc_port *p = &t->ports[port];
	if (t->nodes[p->node].tier == SC_HOST)
		snprintf(out, len, "eth0");
	else
		snprintf(out, len, "Ethernet%u", p->num);
}

int32_t sc_topo_find_port(const struct sc_topo *t, const char *spec)
{
	char node[SC_NAME_MAX];
	const char *colon = strchr(spec, ':');
	if (!colon || (size_t)(colon - spec) >= sizeof(node))
		return -1;
	memcpy(node, spec, (size_t)(colon - spec));
	node[colon - spec] = 0;
	int32_t n = sc_topo_find_node(t, node);
	if (n < 0)
		return -1;
	const char *p = colon + 1;
	if (!strncmp(p, "Ethernet", 8))
		p += 8;
	else if (!strcmp(p, "eth0"))
		p = "1";
	char *end;
	unsigned long num = strtoul(p, &end, 10);
	if (*end || !*p || num < 1 || num > t->nodes[n].n_ports)
		return -1;
	return (int32_t)(t->nodes[n].port0 + num - 1);
}

unsigned sc_ecmp_pick(uint64_t flow_hash, uint32_t node_id, unsigned n)
{
	return n ? (unsigned)(gen_mix(flow_hash ^ ((uint64_t)node_id << 17)) % n) : 0;
}

static int port_up(const struct sc_topo *t, uint32_t p)
{
	return t->ports[p].up && t->ports[t->ports[p].peer].up;
}

/* Up-ports of node n (port numbers first..last) whose far side can still reach want(). */
typedef int (*reach_fn)(const struct sc_topo *t, uint32_t node, const void *arg);

static int32_t pick_up(const struct sc_topo *t, uint32_t n, unsigned first, unsigned last, uint64_t hash,
                       reach_fn reach, const void *arg)
{
	uint32_t cand[64];
	unsigned nc = 0;
	const struct sc_node *x = &t->nodes[n];
	for (unsigned num = first; num <= last && nc < 64; num++) {
		uint32_t p = x->port0 + num - 1;
		if (!port_up(t, p))
			continue;
		if (reach && !reach(t, t->ports[t->ports[p].peer].node, arg))
			continue;
		cand[nc++] = p;
	}
	if (!nc)
		return -1;
	return (int32_t)cand[sc_ecmp_pick(hash, x->id, nc)];
}

/* A node (spine / aggregation) reaches the destination leaf when its link down to it is up. */
static int reaches_leaf(const struct sc_topo *t, uint32_t node, const void *arg)
{
	int32_t p = sc_topo_port_to(t, node, *(const uint32_t *)arg);
	return p >= 0 && port_up(t, (uint32_t)p);
}

struct core_arg {
	uint32_t dst_edge;
	unsigned dst_pod, h;
	uint32_t agg0;
};

/* Core reaches the destination pod's edge through the pod's aggregation switch under it. */
static int core_reaches(const struct sc_topo *t, uint32_t core, const void *arg)
{
	const struct core_arg *c = arg;
	uint32_t agg = c->agg0 + c->dst_pod * c->h + t->nodes[core].idx / c->h;
	int32_t down = sc_topo_port_to(t, core, agg);
	return down >= 0 && port_up(t, (uint32_t)down) && reaches_leaf(t, agg, &c->dst_edge);
}

/* Aggregation switch reaches another pod through any of its cores. */
static int agg_reaches_pod(const struct sc_topo *t, uint32_t agg, const void *arg)
{
	const struct core_arg *c = arg;
	const struct sc_node *x = &t->nodes[agg];
	for (unsigned num = c->h + 1; num <= 2 * c->h; num++) {
		uint32_t p = x->port0 + num - 1;
		if (port_up(t, p) && core_reaches(t, t->ports[t->ports[p].peer].node, arg))
			return 1;
	}
	return 0;
}

unsigned sc_route(const struct sc_topo *t, uint32_t src, uint32_t dst, uint64_t hash, uint32_t out[SC_MAX_PATH])
{
	unsigned n = 0;
	uint32_t nic = t->nodes[src].port0;
	if (!port_up(t, nic) || !port_up(t, t->nodes[dst].port0))
		return 0;
	out[n++] = nic;
	uint32_t leaf = t->ports[t->ports[nic].peer].node;
	uint32_t dleaf = t->ports[t->ports[t->nodes[dst].port0].peer].node;
	const uint32_t dport = t->ports[t->nodes[dst].port0].peer;
	if (leaf == dleaf) {
		out[n++] = dport;
		return n;
	}
	const unsigned h = t->hosts_per_leaf;
	if (t->kind == SC_LEAF_SPINE) {
		int32_t up = pick_up(t, leaf, h + 1, h + t->spines, hash, reaches_leaf, &dleaf);
		if (up < 0)
			return 0;
		out[n++] = (uint32_t)up;
		uint32_t spine = t->ports[t->ports[up].peer].node;
		out[n++] = (uint32_t)sc_topo_port_to(t, spine, dleaf);
		out[n++] = dport;
		return n;
	}
	const unsigned k = t->k;
	struct core_arg ca = {dleaf, t->nodes[dleaf].pod, k / 2, (k / 2) * (k / 2)};
	if (t->nodes[leaf].pod == t->nodes[dleaf].pod) {
		int32_t up = pick_up(t, leaf, h + 1, k, hash, reaches_leaf, &dleaf);
		if (up < 0)
			return 0;
		out[n++] = (uint32_t)up;
		out[n++] = (uint32_t)sc_topo_port_to(t, t->ports[t->ports[up].peer].node, dleaf);
		out[n++] = dport;
		return n;
	}
	int32_t up = pick_up(t, leaf, h + 1, k, hash, agg_reaches_pod, &ca);
	if (up < 0)
		return 0;
	out[n++] = (uint32_t)up;
	uint32_t agg = t->ports[t->ports[up].peer].node;
	int32_t up2 = pick_up(t, agg, h + 1, k, hash, core_reaches, &ca);
	if (up2 < 0)
		return 0;
	out[n++] = (uint32_t)up2;
	uint32_t core = t->ports[t->ports[up2].peer].node;
	uint32_t dagg = ca.agg0 + ca.dst_pod * ca.h + t->nodes[core].idx / ca.h;
	out[n++] = (uint32_t)sc_topo_port_to(t, core, dagg);
	out[n++] = (uint32_t)sc_topo_port_to(t, dagg, dleaf);
	out[n++] = dport;
	return n;
}
