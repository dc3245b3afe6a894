/* Links across snapshots: links that were up in an earlier --json-out output and are not up now (lldpcli
 * dumps drop a neighbour silently, so only a baseline can tell), and the live reloads of `run`. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/topo.h"

static const char *str(json_t *end, const char *key)
{
	const char *s = json_string_value(json_object_get(end, key));
	return s ? s : "";
}

/* Is there an up link between node a's port pa and node b's port pb? */
static int up_between(const struct hw_topo *t, const char *a, const char *pa, const char *b, const char *pb)
{
	uint32_t na = hw_topo_find_node_by_name(t, a);
	uint32_t p = na == HW_TOPO_NONE ? HW_TOPO_NONE : hw_topo_find_port_by_name(t, na, pa);
	uint32_t q = hw_topo_peer(t, p);
	if (q == HW_TOPO_NONE || !t->links[t->ports[p].link].up)
		return 0;
	return strcmp(t->nodes[t->ports[q].node].name, b) == 0 && strcmp(t->ports[q].name, pb) == 0;
}

enum hw_topo_result hw_topo_compare_baseline(struct hw_topo *t, const char *path, double now, struct hw_topo_error *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root)
		return hw_topo_fail(err, je.line < 0 ? HW_TOPO_E_IO : HW_TOPO_E_JSON, "%s: line %d: %s", path, je.line,
		                    je.text);
	json_t *links = json_object_get(root, "links"), *l;
	if (!json_is_array(links)) {
		json_decref(root);
		return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: not a hopwatch topology JSON (no \"links\" array)",
		                    path);
	}
	size_t i;
	json_array_foreach(links, i, l)
	{
		json_t *a = json_object_get(l, "a"), *b = json_object_get(l, "b");
		if (!json_is_true(json_object_get(l, "up")) || !json_is_object(a) || !json_is_object(b))
			continue;
		if (up_between(t, str(a, "node"), str(a, "port"), str(b, "node"), str(b, "port")) ||
		    up_between(t, str(b, "node"), str(b, "port"), str(a, "node"), str(a, "port")))
			continue;
		hw_topo_event_named(t, HW_EV_LINK_DISAPPEARED, now, str(a, "node"), str(a, "port"), str(b, "node"),
		                    str(b, "port"), "up in %.200s, not up now", path);
	}
	json_decref(root);
	return HW_TOPO_OK;
}

/* ---- live reloads ---- */

static int key_cmp(const struct hw_topo_live_link *x, const struct hw_topo_live_link *y)
{
	int c = strcmp(x->a_node, y->a_node);
	if (!c)
		c = strcmp(x->a_port, y->a_port);
	if (!c)
		c = strcmp(x->b_node, y->b_node);
	return c ? c : strcmp(x->b_port, y->b_port);
}

static int key_qsort(const void *x, const void *y)
{
	return key_cmp(x, y);
}

/* Link i of t as a key: its ends by node and port name, the smaller end first. */
static void key_of(const struct hw_topo *t, uint32_t i, struct hw_topo_live_link *k)
{
	const struct hw_topo_port *p = &t->ports[t->links[i].a], *q = &t->ports[t->links[i].b];
	const char *pn = t->nodes[p->node].name, *qn = t->nodes[q->node].name;
	int c = strcmp(pn, qn);
	if (c > 0 || (!c && strcmp(p->name, q->name) > 0)) {
		const struct hw_topo_port *x = p;
		const char *xn = pn;
		p = q, pn = qn;
		q = x, qn = xn;
	}
	memset(k, 0, sizeof(*k));
	snprintf(k->a_node, sizeof(k->a_node), "%s", pn);
	snprintf(k->a_port, sizeof(k->a_port), "%s", p->name);
	snprintf(k->b_node, sizeof(k->b_node), "%s", qn);
	snprintf(k->b_port, sizeof(k->b_port), "%s", q->name);
}

static int reserve(void **v, uint32_t *cap, uint32_t want, size_t size)
{
	if (want <= *cap)
		return 0;
	void *n = realloc(*v, (size_t)want * size);
	if (!n)
		return -1;
	*v = n;
	*cap = want;
	return 0;
}

/* What the update in progress does to a link (hw_topo_live_link.mark). */
enum { MARK_NONE, MARK_DOWN, MARK_BACK, MARK_NEW };

/* Does link x have the end (node, port)? */
static int has_end(const struct hw_topo_live_link *x, const char *node, const char *port)
{
	return (!strcmp(x->a_node, node) && !strcmp(x->a_port, port)) ||
	       (!strcmp(x->b_node, node) && !strcmp(x->b_port, port));
}

/* After the LinkDown and LinkUp changes of one update: a port whose link went down while another link came up
 * on it hears a new neighbour.  Out of memory: the NeighborChanged are left out, the rest stands. */
static void add_neighbor_changes(struct hw_topo_live *l)
{
	uint32_t n = l->n_changes;
	for (uint32_t i = 0; i < n; i++) {
		if (l->changes[i].kind != HW_EV_LINK_UP)
			continue;
		const struct hw_topo_live_link *up = &l->links[l->changes[i].link];
		for (uint32_t j = 0; j < n; j++) {
			if (l->changes[j].kind != HW_EV_LINK_DOWN)
				continue;
			const struct hw_topo_live_link *down = &l->links[l->changes[j].link];
			for (uint8_t end = 0; end < 2; end++) {
				const char *node = end ? up->b_node : up->a_node, *port = end ? up->b_port : up->a_port;
				if (!has_end(down, node, port))
					continue;
				if (reserve((void **)&l->changes, &l->cap_changes, l->n_changes + 1,
				            sizeof(*l->changes)))
					return;
				l->changes[l->n_changes++] =
				    (struct hw_topo_live_change){.kind = HW_EV_NEIGHBOR_CHANGED,
				                                 .link = l->changes[i].link,
				                                 .end = end,
				                                 .was = l->changes[j].link};
			}
		}
	}
}

int hw_topo_live_update(struct hw_topo_live *l, const struct hw_topo *fresh)
{
	uint32_t old = l->n_links, most = old + fresh->n_links; /* every fresh link new, every old one down */
	uint8_t *seen = calloc(old ? old : 1, 1);
	if (!seen || reserve((void **)&l->links, &l->cap_links, most ? most : 1, sizeof(*l->links)) ||
	    reserve((void **)&l->changes, &l->cap_changes, most ? most : 1, sizeof(*l->changes))) {
		free(seen);
		return -1;
	}
	for (uint32_t i = 0; i < fresh->n_links; i++) {
		if (!fresh->links[i].up)
			continue;
		struct hw_topo_live_link k;
		key_of(fresh, i, &k);
		const struct hw_topo_live_link *hit = old ? bsearch(&k, l->links, old, sizeof(k), key_qsort) : NULL;
		if (hit) {
			seen[hit - l->links] = 1;
		} else {
			k.up = 1;
			k.mark = MARK_NEW;
			l->links[l->n_links++] = k;
		}
	}
	for (uint32_t i = 0; i < old; i++) {
		struct hw_topo_live_link *x = &l->links[i];
		x->mark = x->up == seen[i] ? MARK_NONE : seen[i] ? MARK_BACK : MARK_DOWN;
		x->up = seen[i];
	}
	free(seen);
	if (l->n_links > old) { /* sorted again for the next bsearch, each name pair once */
		qsort(l->links, l->n_links, sizeof(*l->links), key_qsort);
		uint32_t n = 1;
		for (uint32_t i = 1; i < l->n_links; i++)
			if (key_cmp(&l->links[i], &l->links[n - 1]))
				l->links[n++] = l->links[i];
		l->n_links = n;
	}
	l->n_changes = 0;
	for (uint32_t i = 0; i < l->n_links; i++) {
		struct hw_topo_live_link *x = &l->links[i];
		if (x->mark != MARK_NONE)
			l->changes[l->n_changes++] =
			    (struct hw_topo_live_change){.kind = x->mark == MARK_DOWN ? HW_EV_LINK_DOWN : HW_EV_LINK_UP,
			                                 .link = i,
			                                 .is_new = x->mark == MARK_NEW};
		x->mark = MARK_NONE;
	}
	add_neighbor_changes(l);
	return 0;
}

int hw_topo_live_init(struct hw_topo_live *l, const struct hw_topo *baseline)
{
	memset(l, 0, sizeof(*l));
	if (hw_topo_live_update(l, baseline))
		return -1;
	l->n_changes = 0; /* the baseline is what was there: nothing changed */
	return 0;
}

void hw_topo_live_free(struct hw_topo_live *l)
{
	free(l->links);
	free(l->changes);
	memset(l, 0, sizeof(*l));
}
