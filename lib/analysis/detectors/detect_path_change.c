/* PathChange: a flow's path (the signature of its sink reports' hops, lib/facts: the collector's rule; queue
 * and drop reports from switches before the sink carry only the path so far) differs from the path it had; placed
 * at the first hop that differs, resolved path_change_clear_ns later.  Flows live in a bounded table
 * (max_flows); a flow pushed out simply starts over. */
#include <stdio.h>
#include <string.h>

#include "detector.h"

struct an_flow {             /* a slot of the flow table */
	uint64_t hash, path; /* path: signature of the hop sequence (lib/facts, never 0); 0 = empty slot */
	uint64_t changed_ns; /* PathChange active since (0 = none) */
	uint64_t ev_id;
	uint32_t ev_node, ev_port; /* where the active PathChange was placed */
	uint32_t hops[AN_PATH][2]; /* node_id, egress_port */
	uint32_t in0;              /* ingress_port of hop 0 (the link into the first switch) */
	uint8_t n_hops;
};

struct path_state {
	uint32_t n_path_active;
	uint64_t path_next_expiry; /* record time the earliest active PathChange resolves; 0 = none */
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

static void resolve(struct hw_analyzer *a, struct path_state *ps, struct an_flow *f, uint64_t now)
{
	struct an_ev *e = an_ev_begin(a, HW_AN_PATH_CHANGE, NULL, f->ev_id, f->changed_ns);
	an_ev_place(e, f->ev_node, f->ev_port, -1);
	an_ev_resolved(e, now);
	an_ev_flow(e, f->hash);
	an_ev_commit(e);
	f->changed_ns = 0;
	ps->n_path_active--;
}

static void report(struct hw_analyzer *a, struct an_det *det, const struct an_report *rep)
{
	struct path_state *ps = det->state;
	struct an_flow *flows = det->flows;
	const uint32_t all = rep->n_hops >= 32 ? UINT32_MAX : (1u << rep->n_hops) - 1;
	if (!hw_path_report_whole(rep->flags, rep->n_hops, rep->has_flow) || (rep->ports & all) != all)
		return; /* the path so far (a report from a switch before the sink), or a hop without ports */
	uint64_t ph = path_sig(rep);
	unsigned d = 0; /* the first hop that differs */
	int changed = 0;
	char detail[256];
	struct {
		const char *name;
		double value;
	} nums[] = {{"hop", 0}, {"old_hops", 0}, {"new_hops", 0}};
	uint32_t old_path[AN_PATH][2];
	unsigned n_old = 0;
	uint32_t home = (uint32_t)(rep->flow_hash ^ (rep->flow_hash >> 32)) & a->fmask, slot = UINT32_MAX;
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
	if (!f) {
		f = &flows[slot == UINT32_MAX ? home : slot];
		if (!f->path)
			a->n_flows++;
		else if (f->changed_ns)
			resolve(a, ps, f, rep->time_ns); /* pushed out while its event was active */
		memset(f, 0, sizeof(*f));
		f->hash = rep->flow_hash;
	} else if (hw_path_changed(f->path, ph) && !f->changed_ns) {
		/* the ingress ports of later hops follow from the egress port before them (one link each) */
		while (d < rep->n_hops && d < f->n_hops && rep->hops[d][0] == f->hops[d][0] &&
		       rep->hops[d][1] == f->hops[d][1] && (d || rep->hop_in[0] == f->in0))
			d++;
		if (d >= rep->n_hops)
			d = rep->n_hops - 1;
		char was[120], now[120];
		describe(was, sizeof(was), (const uint32_t(*)[2])f->hops, f->n_hops);
		describe(now, sizeof(now), rep->hops, rep->n_hops);
		snprintf(detail, sizeof(detail), "path %s -> %s", was, now);
		n_old = f->n_hops < AN_PATH ? f->n_hops : AN_PATH;
		memcpy(old_path, f->hops, sizeof(old_path[0]) * n_old);
		nums[0].value = d;
		nums[1].value = f->n_hops;
		nums[2].value = rep->n_hops;
		f->ev_id = a->next_id++;
		f->ev_node = rep->hops[d][0];
		f->ev_port = rep->hops[d][1];
		f->changed_ns = rep->time_ns ? rep->time_ns : 1;
		ps->n_path_active++;
		if (!ps->path_next_expiry || f->changed_ns + a->c.path_change_clear_ns < ps->path_next_expiry)
			ps->path_next_expiry = f->changed_ns + a->c.path_change_clear_ns;
		changed = 1;
	}
	/* stored before the event goes out: the new path is the flow's current one (its graph) */
	f->path = ph;
	f->n_hops = rep->n_hops;
	f->in0 = rep->hop_in[0];
	memcpy(f->hops, rep->hops, sizeof(f->hops));
	if (changed) {
		struct an_ev *e = an_ev_begin(a, HW_AN_PATH_CHANGE, NULL, f->ev_id, f->changed_ns);
		an_ev_place(e, rep->hops[d][0], rep->hops[d][1], -1);
		for (unsigned i = 0; i < 3; i++)
			an_ev_num(e, nums[i].name, nums[i].value);
		an_ev_flow(e, f->hash);
		an_ev_old_path(e, (const uint32_t(*)[2])old_path, n_old);
		an_ev_detail(e, "%s", detail);
		an_ev_commit(e);
	}
}

/* The flow table is scanned only when the earliest active PathChange is due, not every tick. */
static void tick(struct hw_analyzer *a, struct an_det *det, uint64_t now)
{
	struct path_state *ps = det->state;
	if (!ps->n_path_active || now < ps->path_next_expiry)
		return;
	ps->path_next_expiry = 0;
	for (uint32_t i = 0; i <= a->fmask; i++) {
		struct an_flow *f = &((struct an_flow *)det->flows)[i];
		if (!f->changed_ns)
			continue;
		uint64_t due = f->changed_ns + a->c.path_change_clear_ns;
		if (now >= due)
			resolve(a, ps, f, now);
		else if (!ps->path_next_expiry || due < ps->path_next_expiry)
			ps->path_next_expiry = due;
	}
}

/* A flow's current path (the graphs): the flow table's probe sequence, four slots from the flow's home. */
static unsigned flow_path(const struct hw_analyzer *a, const struct an_det *det, uint64_t flow_hash,
                          uint32_t (*hops)[2], unsigned max)
{
	uint32_t home = (uint32_t)(flow_hash ^ (flow_hash >> 32)) & a->fmask;
	for (uint32_t i = 0; i < 4; i++) {
		const struct an_flow *f = &((const struct an_flow *)det->flows)[(home + i) & a->fmask];
		if (!f->path || f->hash != flow_hash)
			continue;
		unsigned n = f->n_hops < max ? f->n_hops : max;
		memcpy(hops, f->hops, n * sizeof(hops[0]));
		return n;
	}
	return 0;
}

static const struct an_key keys[] = {
    AN_KEY("path_change", "clear_ns", AN_U64, path_change_clear_ns),
};

static void defaults(struct hw_an_config *c)
{
	c->path_change_clear_ns = 1000000000;
}

const struct an_detector an_detect_path_change = {
    .name = "path_change",
    .kind = HW_AN_PATH_CHANGE,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .flow_size = sizeof(struct an_flow),
    .state_size = sizeof(struct path_state),
    .report = report,
    .tick = tick,
    .flow_path = flow_path,
};
