/* PathChange: flows whose whole path (sink reports, lib/facts) differs from the one they had, one alert per
 * cause (a burst of moves, placed at the link their old paths left) with the moved flows; resolved when they
 * move back. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "detector.h"

/* The rule (docs/analyzer.md):
 * - A whole-path report (hw_path_report_use: HW_PATH_WHOLE) sets the flow's path.  When the flow had
 *   another one, the flow moved, unless its path came from a Q+F report and the new one only extends it
 *   (the Q+F report was a transit's after all: the path completed).  The links the move left are the
 *   old path's hops whose (node, egress port) the new path does not take, each with the next hop's node and
 *   ingress port (the last hop's: toward the host, peer unknown).
 * - A report of the path so far (HW_PATH_PREFIX: I, D, Q without F, a Q+F report shorter than the flow's
 *   path) is compared with the same prefix of the flow's path (every hop's node and egress port but the
 *   last hop's egress, which a drop may not have chosen) and never moves the flow; when it disagrees, the
 *   next move of the flow starts at that earlier evidence.
 * - A cause is a burst of moves: a move joins an active cause when it comes within gather_ns of that
 *   cause's last move, or when it left the cause's link; else it starts one.  One link down moves the
 *   flows that crossed it and, by ECMP rehashing, others: one cause.  Two unrelated changes within
 *   gather_ns of each other are one cause too.  The PathChange is raised gather_ns after the cause's first
 *   move (at once at the end of input), placed at the link the most of its moves left among the links
 *   none of its new paths takes (a link that went down carries nothing; ECMP rehashing leaves working
 *   links too, and new paths take those), else among all (ties: the first seen), at the end where the
 *   first move left it (node, egress port); crossed says how many moves left it.  Flows that join later
 *   are counted into its resolve.
 * - A path assembled from postcards (an_report.postcards) counts only when the flow's next assembled packet
 *   has the same path: a postcard lost or reordered makes one packet's path wrong, not two in a row.
 * - A moved flow whose whole path is again the one it left has moved back.  The PathChange resolves when
 *   every moved flow moved back, or clear_ns after its last move (the flows stay on their new paths);
 *   moved_back says how many came back.  A flow that moves again for another cause leaves its first one.
 * Flows live in a bounded table (max_flows, four probes from the flow's home slot); a flow pushed out
 * simply starts over.  Causes live in AN_CAUSES slots; a move when all are busy is counted (stats) and
 * not reported. */
#define AN_CAUSES 64

/* The flow table (flow_size bytes per slot, an_flow_slots() slots) is two arrays: every slot's key (struct an_flow,
 * two to a cache line: an_core aligns the table), then every slot's path (struct an_flow_path).  A report of a flow
 * whose path did not change reads its key only.  The table holds tens of thousands of flows (53,882 on #19's
 * realistic capture): 65,536 slots of 256 bytes were 16 MiB and a cache miss per report, the keys are 2 MiB.  The
 * path is read when a path changes or a report of the path so far comes, and written when the path changes. */
struct an_flow {
	uint64_t hash;         /* the flow */
	uint64_t path;         /* signature of the hop sequence (lib/facts, never 0); 0 = empty slot */
	uint64_t cause_id;     /* while moved: its cause's event id (0 = not moved) */
	uint8_t n_hops, cause; /* cause: its cause slot + 1 while moved */
	uint8_t from_q;        /* path came from a Q+F report: it may be a transit's path so far */
	uint8_t pending;       /* FLOW_SUSPECT, FLOW_UNCONFIRMED: the path's suspect_ns, unconfirmed are set */
};
_Static_assert(AN_LINE % sizeof(struct an_flow) == 0, "a flow's key never straddles a cache line");
#define FLOW_SUSPECT 1u
#define FLOW_UNCONFIRMED 2u

struct an_flow_path {
	uint64_t home;             /* while moved: the signature of the path it left */
	uint64_t suspect_ns;       /* a report of the path so far disagreed with path at this time (0 = none) */
	uint64_t unconfirmed;      /* postcards: a different path seen once, not yet twice in a row (0 = none) */
	uint32_t in[AN_PATH];      /* each hop's ingress_port (in[0]: the link into the first switch) */
	uint32_t hops[AN_PATH][2]; /* node_id, egress_port */
};

/* Flow slot f's path (the second array: right after the an_flow_slots() keys). */
static struct an_flow_path *path_of(const struct hw_analyzer *a, const struct an_det *det, const struct an_flow *f)
{
	struct an_flow *keys = det->flows;
	return (struct an_flow_path *)(void *)(keys + an_flow_slots(a)) + (f - keys);
}

#define AN_CAUSE_LINKS 64
struct an_link { /* a link of a cause's moves: from (node, egress port) to (peer, its ingress port) */
	uint32_t node, port, peer, peer_port;
	uint32_t n;    /* moves that left it */
	uint8_t taken; /* a new path of the cause's moves takes it: it still works */
};

struct an_cause {
	uint64_t id, start_ns, last_ns, end_ns; /* last_ns: its last move; end_ns: the last move back */
	uint64_t first_ns;                      /* its first move's report time (start_ns may be earlier) */
	uint32_t node, port;                    /* placement: set at the raise */
	uint32_t moved, back, left;             /* flows moved, moved back, moved again elsewhere */
	uint8_t used, raised;
	unsigned n_links, link; /* link: the chosen one (index) at the raise */
	struct an_link links[AN_CAUSE_LINKS];
	/* the first move, for the alert's detail and numbers */
	uint32_t hop, old_n, new_n;
	uint32_t old_path[AN_PATH][2];
	char detail[200];
	unsigned n_flows;
	uint64_t flows[HW_AN_MAX_FLOWS];
};

struct path_state {
	unsigned n_active;
	uint64_t causes_full; /* moves not reported: every cause slot was busy */
	struct an_cause causes[AN_CAUSES];
};

static uint64_t path_sig(const struct an_report *rep)
{
	uint64_t h = HW_PATH_SIG_SEED;
	for (unsigned i = 0; i < rep->n_hops; i++)
		h = hw_path_sig_step(h, rep->hops[i][0], rep->hop_in[i], rep->hops[i][1]);
	return hw_path_sig_done(h);
}

static void describe(char *buf, size_t size, const uint32_t hops[][2], unsigned n)
{
	size_t off = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < n && off < size; i++) {
		int w = snprintf(buf + off, size - off, "%s%u:%u", i ? ">" : "", hops[i][0], hops[i][1]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static void emit(struct hw_analyzer *a, struct an_cause *c, int resolved, uint64_t end)
{
	struct an_ev *e = an_ev_begin(a, HW_AN_PATH_CHANGE, NULL, c->id, c->start_ns);
	an_ev_place(e, c->node, c->port, -1);
	if (resolved)
		an_ev_resolved(e, end);
	an_ev_num(e, "moved_flows", c->moved);
	an_ev_num(e, "moved_back", c->back);
	an_ev_num(e, "crossed", c->n_links ? c->links[c->link].n : 0);
	an_ev_num(e, "hop", c->hop);
	an_ev_num(e, "old_hops", c->old_n);
	an_ev_num(e, "new_hops", c->new_n);
	for (unsigned i = 0; i < c->n_flows; i++)
		an_ev_flow(e, c->flows[i]);
	an_ev_old_path(e, (const uint32_t(*)[2])c->old_path, c->old_n < AN_PATH ? c->old_n : AN_PATH);
	const struct an_link *l = c->n_links ? &c->links[c->link] : NULL;
	char link[64] = "";
	if (l && l->peer)
		snprintf(link, sizeof(link), "left link %u:%u--%u:%u, ", l->node, l->port, l->peer, l->peer_port);
	else if (l)
		snprintf(link, sizeof(link), "left %u:%u, ", l->node, l->port);
	an_ev_detail(e, "%s%u flow%s moved (first: %s)%s", link, c->moved, c->moved == 1 ? "" : "s", c->detail,
	             !resolved             ? ""
	             : c->back == c->moved ? "; all moved back"
	                                   : "; resolved");
	an_ev_commit(e);
}

static void raise_cause(struct hw_analyzer *a, struct an_cause *c)
{
	c->raised = 1;
	/* the link most moves left among those no new path takes (a link that went down carries none), else
	 * among all */
	int found = 0;
	for (unsigned pass = 0; pass < 2 && !found; pass++)
		for (unsigned i = 0; i < c->n_links; i++) {
			const struct an_link *l = &c->links[i];
			if (!l->n || (!pass && l->taken))
				continue;
			if (!found || l->n > c->links[c->link].n)
				c->link = i;
			found = 1;
		}
	if (c->n_links) {
		c->node = c->links[c->link].node;
		c->port = c->links[c->link].port;
	}
	emit(a, c, 0, 0);
}

static void end_cause(struct hw_analyzer *a, struct path_state *ps, struct an_cause *c, uint64_t end)
{
	if (!c->raised)
		raise_cause(a, c);
	emit(a, c, 1, end);
	c->used = 0;
	ps->n_active--;
}

/* Whether the move of f (its old path) to rep's path left link l. */
static int left_link(const struct an_flow *f, const struct an_flow_path *fp, const struct an_report *rep,
                     const struct an_link *l);

/* The cause a move at time t of f to rep joins: an active one whose last move is within gather_ns, or whose
 * link the move left; else a new one (first_move: placed there until the raise); NULL when all are busy. */
static struct an_cause *cause_of(struct hw_analyzer *a, struct path_state *ps, const struct an_flow *f,
                                 const struct an_flow_path *fp, const struct an_report *rep,
                                 const uint32_t first_move[2], uint64_t start)
{
	struct an_cause *free_slot = NULL;
	const uint64_t t = rep->time_ns;
	for (unsigned i = 0; i < AN_CAUSES; i++) {
		struct an_cause *c = &ps->causes[i];
		if (c->used && (t < c->last_ns + a->c.path_change_gather_ns ||
		                (c->raised && c->n_links && left_link(f, fp, rep, &c->links[c->link]))))
			return c;
		if (!c->used && !free_slot)
			free_slot = c;
	}
	if (!free_slot) {
		ps->causes_full++;
		return NULL;
	}
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->used = 1;
	free_slot->id = a->next_id++;
	free_slot->node = first_move[0];
	free_slot->port = first_move[1];
	free_slot->start_ns = start;
	free_slot->first_ns = t;
	ps->n_active++;
	return free_slot;
}

/* The flow's cause while it is moved (NULL when the slot went on to another cause). */
static struct an_cause *flow_cause(struct path_state *ps, const struct an_flow *f)
{
	if (!f->cause)
		return NULL;
	struct an_cause *c = &ps->causes[f->cause - 1];
	return c->used && c->id == f->cause_id ? c : NULL;
}

/* The flow stops being moved for its cause: back home (back) or moved again (left). */
static void detach(struct hw_analyzer *a, struct path_state *ps, struct an_flow *f, int back, uint64_t now)
{
	struct an_cause *c = flow_cause(ps, f);
	f->cause = 0;
	f->cause_id = 0;
	if (!c)
		return;
	if (back) {
		c->back++;
		c->end_ns = now;
	} else {
		c->left++;
	}
	if (c->back + c->left >= c->moved && c->back)
		end_cause(a, ps, c, now);
}

/* The first hop where rep's path and the flow's differ, comparing the first n hops (the last one's node
 * only when last_egress is 0); n when they agree. */
static unsigned first_difference(const struct an_flow *f, const struct an_flow_path *fp, const struct an_report *rep,
                                 unsigned n, int last_egress)
{
	unsigned d = 0;
	while (d < n && d < f->n_hops && rep->hops[d][0] == fp->hops[d][0] &&
	       (rep->hops[d][1] == fp->hops[d][1] || (!last_egress && d + 1 == n)) &&
	       (d || rep->hop_in[0] == fp->in[0]))
		d++;
	return d;
}

/* Whether rep's path takes (node, egress port). */
static int takes(const struct an_report *rep, uint32_t node, uint32_t port)
{
	for (unsigned i = 0; i < rep->n_hops; i++)
		if (rep->hops[i][0] == node && rep->hops[i][1] == port)
			return 1;
	return 0;
}

/* Hop i of f's path as a link: to the next hop's node and ingress port (0, 0 after the last hop). */
static struct an_link link_of(const struct an_flow *f, const struct an_flow_path *fp, unsigned i)
{
	struct an_link l = {fp->hops[i][0], fp->hops[i][1], 0, 0, 0, 0};
	if (i + 1 < f->n_hops) {
		l.peer = fp->hops[i + 1][0];
		l.peer_port = fp->in[i + 1];
	}
	return l;
}

/* The same link, either way round (a link seen from its other end has node and peer swapped). */
static int same_link(const struct an_link *x, const struct an_link *y)
{
	return (x->node == y->node && x->port == y->port && x->peer == y->peer && x->peer_port == y->peer_port) ||
	       (x->peer && x->node == y->peer && x->port == y->peer_port && x->peer == y->node &&
	        x->peer_port == y->port);
}

static int left_link(const struct an_flow *f, const struct an_flow_path *fp, const struct an_report *rep,
                     const struct an_link *l)
{
	for (unsigned i = 0; i < f->n_hops && i < AN_PATH; i++) {
		struct an_link x = link_of(f, fp, i);
		if (same_link(&x, l))
			return !takes(rep, x.node, x.port);
	}
	return 0;
}

/* c's entry for link x (added when new; NULL when the table is full: the first links seen are kept). */
static struct an_link *cause_link(struct an_cause *c, const struct an_link *x)
{
	unsigned k = 0;
	while (k < c->n_links && !same_link(&c->links[k], x))
		k++;
	if (k == c->n_links) {
		if (k == AN_CAUSE_LINKS)
			return NULL;
		c->links[c->n_links++] = *x;
	}
	return &c->links[k];
}

/* Count the links f's move to rep left into c, and mark those its new path takes. */
static void count_links(struct an_cause *c, const struct an_flow *f, const struct an_flow_path *fp,
                        const struct an_report *rep)
{
	struct an_link *l;
	for (unsigned i = 0; i < f->n_hops && i < AN_PATH; i++) {
		if (takes(rep, fp->hops[i][0], fp->hops[i][1]))
			continue;
		struct an_link x = link_of(f, fp, i);
		if ((l = cause_link(c, &x)))
			l->n++;
	}
	for (unsigned i = 0; i < rep->n_hops && i < AN_PATH; i++) {
		struct an_link x = {rep->hops[i][0], rep->hops[i][1], 0, 0, 0, 0};
		if (i + 1 < rep->n_hops) {
			x.peer = rep->hops[i + 1][0];
			x.peer_port = rep->hop_in[i + 1];
		}
		if ((l = cause_link(c, &x)))
			l->taken = 1;
	}
}

static void moved(struct hw_analyzer *a, struct path_state *ps, struct an_flow *f, struct an_flow_path *fp,
                  const struct an_report *rep)
{
	/* the ingress ports of later hops follow from the egress port before them (one link each) */
	unsigned d = first_difference(f, fp, rep, rep->n_hops, 1);
	if (d >= rep->n_hops)
		d = rep->n_hops - 1;
	const uint32_t *left = d < f->n_hops ? fp->hops[d] : rep->hops[d];
	uint64_t suspect = (f->pending & FLOW_SUSPECT) ? fp->suspect_ns : 0;
	uint64_t start = suspect && suspect < rep->time_ns ? suspect : rep->time_ns;
	uint64_t home = f->path;
	if (flow_cause(ps, f)) {
		home = fp->home; /* moved again: its home stays the path it had before the first move */
		detach(a, ps, f, 0, rep->time_ns);
	}
	struct an_cause *c = cause_of(a, ps, f, fp, rep, left, start ? start : 1);
	if (!c)
		return;
	if (!c->moved) {
		char was[96], now[96];
		describe(was, sizeof(was), (const uint32_t(*)[2])fp->hops, f->n_hops);
		describe(now, sizeof(now), rep->hops, rep->n_hops);
		snprintf(c->detail, sizeof(c->detail), "path %s -> %s", was, now);
		c->hop = d;
		c->old_n = f->n_hops;
		c->new_n = rep->n_hops;
		memcpy(c->old_path, fp->hops, sizeof(c->old_path));
	}
	if (!c->raised)
		count_links(c, f, fp, rep);
	else if (c->n_links && left_link(f, fp, rep, &c->links[c->link]))
		c->links[c->link].n++;
	c->moved++;
	c->last_ns = rep->time_ns;
	if (c->n_flows < HW_AN_MAX_FLOWS)
		c->flows[c->n_flows++] = f->hash;
	f->cause = (uint8_t)(c - ps->causes + 1);
	f->cause_id = c->id;
	fp->home = home;
}

/* The flow's home slot in the table: its key is looked up there and in the next three slots. */
static uint32_t flow_home(const struct hw_analyzer *a, uint64_t flow_hash)
{
	return (uint32_t)(flow_hash ^ (flow_hash >> 32)) & a->fmask;
}

/* The line of the flow's home key, for its report (the table's keys are 2 MiB: a miss per report otherwise). */
static void flow_ahead(const struct hw_analyzer *a, const struct an_det *det, uint64_t flow_hash)
{
	__builtin_prefetch(&((const struct an_flow *)det->flows)[flow_home(a, flow_hash)]);
}

static void report(struct hw_analyzer *a, struct an_det *det, const struct an_report *rep)
{
	struct path_state *ps = det->state;
	struct an_flow *flows = det->flows;
	const uint32_t all = rep->n_hops >= 32 ? UINT32_MAX : (1u << rep->n_hops) - 1;
	if ((rep->ports & all) != all)
		return; /* a hop without ports: a hole */
	uint32_t home = flow_home(a, rep->flow_hash), slot = UINT32_MAX;
	struct an_flow *f = NULL;
	for (uint32_t i = 0; i < 4; i++) {
		struct an_flow *c = &flows[(home + i) & a->fmask];
		if (c->path && c->hash == rep->flow_hash) {
			f = c;
			break;
		}
		if (!c->path && slot == UINT32_MAX)
			slot = (home + i) & a->fmask;
	}
	enum hw_path_use use = hw_path_report_use(rep->flags, rep->n_hops, rep->has_flow, f ? f->n_hops : 0);
	if (use == HW_PATH_NONE)
		return;
	struct an_flow_path *fp = f ? path_of(a, det, f) : NULL; /* its address only: read when needed */
	if (use == HW_PATH_PREFIX) {
		/* compared with the same prefix of the flow's path; never moves the flow by itself */
		if (f && rep->n_hops <= f->n_hops && !(f->pending & FLOW_SUSPECT) &&
		    first_difference(f, fp, rep, rep->n_hops, 0) < rep->n_hops) {
			fp->suspect_ns = rep->time_ns ? rep->time_ns : 1;
			f->pending |= FLOW_SUSPECT;
		}
		return;
	}
	uint64_t ph = path_sig(rep);
	if (!f) {
		f = &flows[slot == UINT32_MAX ? home : slot];
		if (!f->path)
			a->n_flows++;
		else if (flow_cause(ps, f))
			detach(a, ps, f, 0, rep->time_ns); /* pushed out while moved */
		fp = path_of(a, det, f);
		memset(f, 0, sizeof(*f));
		memset(fp, 0, sizeof(*fp));
		f->hash = rep->flow_hash;
	} else if (!hw_path_changed(f->path, ph) && f->n_hops == rep->n_hops) {
		/* the same path (its signature covers every hop): the hops are those kept; the path is not read */
		if (f->pending) {
			fp->suspect_ns = 0;
			fp->unconfirmed = 0;
			f->pending = 0;
		}
		f->from_q = (rep->flags & HW_RF_CONGESTED_QUEUE) != 0;
		return;
	} else if (hw_path_changed(f->path, ph)) { /* else the same signature, another hop count: a collision */
		const uint64_t unconfirmed = (f->pending & FLOW_UNCONFIRMED) ? fp->unconfirmed : 0;
		if (rep->postcards && unconfirmed != ph) {
			fp->unconfirmed = ph; /* postcards: a packet's path counts when the next packet confirms it */
			fp->suspect_ns = rep->time_ns ? rep->time_ns : 1; /* ... and then from this first evidence */
			f->pending = FLOW_SUSPECT | FLOW_UNCONFIRMED;
			return;
		}
		if (f->from_q && rep->n_hops > f->n_hops && first_difference(f, fp, rep, f->n_hops, 1) == f->n_hops)
			; /* its path came from a transit's Q+F report: the whole path extends it */
		else if (flow_cause(ps, f) && ph == fp->home)
			detach(a, ps, f, 1, rep->time_ns);
		else
			moved(a, ps, f, fp, rep);
	}
	fp->suspect_ns = 0;
	fp->unconfirmed = 0;
	f->pending = 0;
	f->from_q = (rep->flags & HW_RF_CONGESTED_QUEUE) != 0;
	f->path = ph;
	f->n_hops = rep->n_hops;
	memcpy(fp->in, rep->hop_in, sizeof(fp->in));
	memcpy(fp->hops, rep->hops, sizeof(fp->hops));
}

/* Every tick: raise the causes gathered for gather_ns (all of them at the end of input), resolve those
 * whose last move is clear_ns old. */
static void tick(struct hw_analyzer *a, struct an_det *det, uint64_t now)
{
	struct path_state *ps = det->state;
	if (!ps->n_active)
		return;
	for (unsigned i = 0; i < AN_CAUSES; i++) {
		struct an_cause *c = &ps->causes[i];
		if (!c->used)
			continue;
		if (!c->raised && (a->finishing || now >= c->first_ns + a->c.path_change_gather_ns))
			raise_cause(a, c);
		if (now >= c->last_ns + a->c.path_change_clear_ns)
			end_cause(a, ps, c, now);
	}
}

/* A flow's current path (the graphs): the flow table's probe sequence, four slots from the flow's home. */
static unsigned flow_path(const struct hw_analyzer *a, const struct an_det *det, uint64_t flow_hash,
                          uint32_t (*hops)[2], unsigned max)
{
	uint32_t home = flow_home(a, flow_hash);
	for (uint32_t i = 0; i < 4; i++) {
		const struct an_flow *f = &((const struct an_flow *)det->flows)[(home + i) & a->fmask];
		if (!f->path || f->hash != flow_hash)
			continue;
		unsigned n = f->n_hops < max ? f->n_hops : max;
		memcpy(hops, path_of(a, det, f)->hops, n * sizeof(hops[0]));
		return n;
	}
	return 0;
}

static const struct an_key keys[] = {
    AN_KEY("path_change", "clear_ns", AN_U64, path_change_clear_ns),
    AN_KEY("path_change", "gather_ns", AN_U64, path_change_gather_ns),
};

static void defaults(struct hw_an_config *c)
{
	c->path_change_clear_ns = 1000000000;
	c->path_change_gather_ns = 1000000;
}

const struct an_detector an_detect_path_change = {
    .name = "path_change",
    .kind = HW_AN_PATH_CHANGE,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .flow_size = sizeof(struct an_flow) + sizeof(struct an_flow_path),
    .state_size = sizeof(struct path_state),
    .report = report,
    .flow_ahead = flow_ahead,
    .tick = tick,
    .flow_path = flow_path,
};
