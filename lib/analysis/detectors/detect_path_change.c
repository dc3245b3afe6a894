/* PathChange: a flow's path (the signature of its sink reports' hops, lib/facts: the collector's rule; queue
 * and drop reports from switches before the sink carry only the path so far) differs from the path it had; placed
 * at the first hop that differs, resolved path_change_clear_ns later.  Flows live in a bounded table
 * (max_flows); a flow pushed out simply starts over. */
#include <stdio.h>
#include <string.h>

#include "an_internal.h"

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

static void resolve(struct hw_analyzer *a, struct an_flow *f, uint64_t now)
{
	an_emit(a, HW_AN_PATH_CHANGE, NULL, f->ev_node, f->ev_port, -1, f->ev_id, f->changed_ns, now, 1, NULL, 0,
	        &f->hash, 1, NULL);
	f->changed_ns = 0;
	a->n_path_active--;
}

static void report(struct hw_analyzer *a, const struct an_report *rep)
{
	const uint32_t all = rep->n_hops >= 32 ? UINT32_MAX : (1u << rep->n_hops) - 1;
	if (!hw_path_report_whole(rep->flags, rep->n_hops, rep->has_flow) || (rep->ports & all) != all)
		return; /* the path so far (a report from a switch before the sink), or a hop without ports */
	uint64_t ph = path_sig(rep);
	unsigned d = 0; /* the first hop that differs */
	int changed = 0;
	char detail[256];
	struct an_num nums[] = {{"hop", 0}, {"old_hops", 0}, {"new_hops", 0}};
	uint32_t old_path[AN_PATH][2];
	unsigned n_old = 0;
	uint32_t home = (uint32_t)(rep->flow_hash ^ (rep->flow_hash >> 32)) & a->fmask, slot = UINT32_MAX;
	struct an_flow *f = NULL;
	for (uint32_t i = 0; i < 4; i++) {
		struct an_flow *c = &a->flows[(home + i) & a->fmask];
		if (c->path && c->hash == rep->flow_hash) {
			f = c;
			break;
		}
		if (!c->path && slot == UINT32_MAX)
			slot = (home + i) & a->fmask;
	}
	if (!f) {
		f = &a->flows[slot == UINT32_MAX ? home : slot];
		if (!f->path)
			a->n_flows++;
		else if (f->changed_ns)
			resolve(a, f, rep->time_ns); /* pushed out while its event was active */
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
		a->n_path_active++;
		if (!a->path_next_expiry || f->changed_ns + a->c.path_change_clear_ns < a->path_next_expiry)
			a->path_next_expiry = f->changed_ns + a->c.path_change_clear_ns;
		changed = 1;
	}
	/* stored before the event goes out: the new path is the flow's current one (its graph) */
	f->path = ph;
	f->n_hops = rep->n_hops;
	f->in0 = rep->hop_in[0];
	memcpy(f->hops, rep->hops, sizeof(f->hops));
	if (changed) {
		a->emit_old_path = (const uint32_t(*)[2])old_path;
		a->emit_old_n = n_old;
		an_emit(a, HW_AN_PATH_CHANGE, NULL, rep->hops[d][0], rep->hops[d][1], -1, f->ev_id, f->changed_ns, 0, 0,
		        nums, 3, &f->hash, 1, detail);
		a->emit_old_path = NULL;
		a->emit_old_n = 0;
	}
}

/* The flow table is scanned only when the earliest active PathChange is due, not every tick. */
static void tick(struct hw_analyzer *a, uint64_t now)
{
	if (!a->n_path_active || now < a->path_next_expiry)
		return;
	a->path_next_expiry = 0;
	for (uint32_t i = 0; i <= a->fmask; i++) {
		struct an_flow *f = &a->flows[i];
		if (!f->changed_ns)
			continue;
		uint64_t due = f->changed_ns + a->c.path_change_clear_ns;
		if (now >= due)
			resolve(a, f, now);
		else if (!a->path_next_expiry || due < a->path_next_expiry)
			a->path_next_expiry = due;
	}
}

const struct an_detector an_detect_path_change = {HW_AN_PATH_CHANGE, NULL, report, NULL, tick};
