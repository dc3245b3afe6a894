/* Scenario events (incast, microburst, link down, PFC storm, DSCP misconfiguration, report loss, MTU
 * mismatch): parsing and checking --event, the named scenarios, and applying events as time passes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scen.h"

static const char *const names[SC_EV_COUNT] = {"incast",         "microburst",  "link-down",   "pfc-storm",
                                               "dscp-misconfig", "report-loss", "mtu-mismatch"};
static const char *const alerts[SC_EV_COUNT] = {
    "Incast", "Microburst", "PathChange", "CongestionTree", "RoceDscpMismatch", "TelemetryReportLoss", "MtuMismatch"};

const char *sc_event_name(unsigned kind)
{
	return kind < SC_EV_COUNT ? names[kind] : "?";
}

const char *sc_event_alert(unsigned kind)
{
	return kind < SC_EV_COUNT ? alerts[kind] : "?";
}

int sc_event_active(const struct sc_event *e, uint64_t now)
{
	return now >= e->start_ns && now < e->end_ns;
}

/* ---- named scenarios: a topology and event specs in the --event syntax ---- */

struct named {
	const char *name, *topo, *about;
	double load, tcp_load;
	const char *events[6];
};

#define LS "leaf-spine:4,8,8"
static const struct named scenarios[] = {
    {"clean", LS, "background RoCE (30% of each host link) and TCP (5%), no events", 0.3, 0.05, {NULL}},
    {"incast",
     LS,
     "16 senders at 25 Gb/s to host1 for 2 ms: 4:1 on its 100G link, PFC spreads upstream",
     0.3,
     0.05,
     {"incast:dst=host1,senders=16,gbps=25,start_us=1000,dur_us=2000"}},
    {"microburst",
     LS,
     "8 senders at 50 Gb/s to host9 for 40 us",
     0.3,
     0.05,
     {"microburst:dst=host9,senders=8,gbps=50,start_us=2000,dur_us=40"}},
    {"link-down",
     LS,
     "leaf1's uplink to spine1 down for 3 ms: ECMP moves its flows to the other spines",
     0.3,
     0.05,
     {"link-down:link=leaf1:Ethernet9,start_us=1000,dur_us=3000"}},
    {"pfc-storm",
     LS,
     "host20 stops draining for 3 ms while 4 peers send to it: pause spreads upstream",
     0.3,
     0.05,
     {"pfc-storm:host=host20,senders=4,gbps=20,start_us=1000,dur_us=3000"}},
    {"dscp-misconfig",
     LS,
     "host5's RoCE traffic leaves with DSCP 0 (lossy queue) for the whole run",
     0.3,
     0.05,
     {"dscp-misconfig:host=host5,start_us=0,dur_us=5000",
      "incast:dst=host1,senders=8,gbps=25,start_us=1000,dur_us=1000"}},
    {"report-loss",
     LS,
     "leaf3 loses 30% of its telemetry reports on the mirror path for 3 ms",
     0.3,
     0.05,
     {"report-loss:node=leaf3,fraction=0.3,start_us=1000,dur_us=3000"}},
    {"mtu-mismatch",
     LS,
     "spine2's port to leaf3 runs MTU 1500 in a 9216 fabric: 4 KB RoCE frames are dropped",
     0.3,
     0.05,
     {"mtu-mismatch:link=spine2:Ethernet3,mtu=1500"}},
    {"buildup",
     LS,
     "8 senders at 13.5 Gb/s to host38 (108 Gb/s into 100G): its queue climbs 1 KB per us, a slow ramp",
     0.3,
     0.05,
     {"incast:dst=host38,senders=8,gbps=13.5,start_us=1000,dur_us=2000"}},
    {"fat-tree-mix",
     "fat-tree:8",
     "k=8 fat-tree with an incast, a microburst, a link down, a PFC storm, report "
     "loss and an MTU mismatch",
     0.3,
     0.05,
     {"incast:dst=host1,senders=12,gbps=25,start_us=500,dur_us=1500",
      "microburst:dst=host64,senders=6,gbps=50,start_us=4300,dur_us=40",
      "link-down:link=edge2-1:Ethernet5,start_us=1000,dur_us=2000",
      "pfc-storm:host=host100,senders=4,gbps=10,start_us=2000,dur_us=1000",
      "report-loss:node=edge3-2,fraction=0.25,start_us=0,dur_us=5000", "mtu-mismatch:link=agg1-3:Ethernet5,mtu=1500"}},
};

void sc_named_list(FILE *f)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		fprintf(f, "  %-15s %s: %s\n", scenarios[i].name, scenarios[i].topo, scenarios[i].about);
		for (int j = 0; j < 6 && scenarios[i].events[j]; j++)
			fprintf(f, "  %-15s   --event %s\n", "", scenarios[i].events[j]);
	}
}

/* Named scenario: topology spec, loads; the events are parsed once the topology exists (events stay
 * NULL-terminated in the table; the caller parses them with sc_named_events()). */
static const struct named *find_named(const char *name)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	return NULL;
}

int sc_named(const char *name, struct sc_cfg *cfg, char *topo_spec, size_t len, char *err, size_t errlen)
{
	const struct named *n = find_named(name);
	if (!n) {
		snprintf(err, errlen,
		         "%s: unknown scenario (known: clean, incast, microburst, link-down, pfc-storm, "
		         "dscp-misconfig, report-loss, mtu-mismatch, buildup, fat-tree-mix)",
		         name);
		return -1;
	}
	snprintf(topo_spec, len, "%s", n->topo);
	cfg->load = n->load;
	cfg->tcp_load = n->tcp_load;
	return 0;
}

const char *const *sc_named_events(const char *name)
{
	const struct named *n = find_named(name);
	return n ? n->events : NULL;
}

/* ---- --event KIND:key=value,... ---- */

static int bad(char *err, size_t errlen, const char *spec, const char *what)
{
	snprintf(err, errlen, "--event %s: %s", spec, what);
	return -1;
}

static int get_num(const char *v, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || end == v || *end || !(x >= lo && x <= hi))
		return -1;
	*out = x;
	return 0;
}

int sc_event_parse(const char *spec, struct sc_cfg *cfg, const struct sc_topo *t, char *err, size_t errlen)
{
	char buf[512], msg[256];
	if (cfg->n_events >= SC_MAX_EVENTS)
		return bad(err, errlen, spec, "too many events (32 at most)");
	snprintf(buf, sizeof(buf), "%s", spec);
	char *colon = strchr(buf, ':');
	if (colon)
		*colon = 0;
	struct sc_event e;
	memset(&e, 0, sizeof(e));
	e.kind = SC_EV_COUNT;
	for (unsigned k = 0; k < SC_EV_COUNT; k++)
		if (!strcmp(buf, names[k]))
			e.kind = (uint8_t)k;
	if (e.kind == SC_EV_COUNT)
		return bad(err, errlen, spec,
		           "unknown event kind (incast, microburst, link-down, pfc-storm, dscp-misconfig, report-loss, "
		           "mtu-mismatch)");
	e.spec = spec;
	double start_us = 1000, dur_us = 2000, gbps = e.kind == SC_EV_PFC_STORM ? 20 : 25, frac = 0.2, mtu = 1500;
	double senders = e.kind == SC_EV_PFC_STORM ? 4 : 8;
	const char *place = NULL;
	int have_dur = 0;
	if (e.kind == SC_EV_DSCP || e.kind == SC_EV_MTU || e.kind == SC_EV_REPORT_LOSS)
		start_us = 0, dur_us = (double)cfg->duration_ns / 1000;
	char *save = NULL;
	for (char *kv = colon ? strtok_r(colon + 1, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq) {
			snprintf(msg, sizeof(msg), "'%s' is not key=value", kv);
			return bad(err, errlen, spec, msg);
		}
		*eq = 0;
		const char *v = eq + 1;
		int r = 0;
		if (!strcmp(kv, "start_us"))
			r = get_num(v, 0, 1e9, &start_us);
		else if (!strcmp(kv, "dur_us"))
			r = get_num(v, 0.001, 1e9, &dur_us), have_dur = 1;
		else if (!strcmp(kv, "gbps"))
			r = get_num(v, 0.001, 1e6, &gbps);
		else if (!strcmp(kv, "senders"))
			r = get_num(v, 1, 100000, &senders);
		else if (!strcmp(kv, "fraction"))
			r = get_num(v, 0, 1, &frac);
		else if (!strcmp(kv, "mtu"))
			r = get_num(v, 68, 65535, &mtu);
		else if (!strcmp(kv, "dst") || !strcmp(kv, "host") || !strcmp(kv, "node") || !strcmp(kv, "link"))
			place = v;
		else {
			snprintf(msg, sizeof(msg), "unknown key '%s'", kv);
			return bad(err, errlen, spec, msg);
		}
		if (r) {
			snprintf(msg, sizeof(msg), "%s=%s is not a number in range", kv, v);
			return bad(err, errlen, spec, msg);
		}
	}
	(void)have_dur;
	if (!place)
		return bad(err, errlen, spec,
		           e.kind == SC_EV_LINK_DOWN || e.kind == SC_EV_MTU ? "needs link=NODE:PORT"
		           : e.kind == SC_EV_REPORT_LOSS                    ? "needs node=SWITCH"
		           : e.kind <= SC_EV_MICROBURST                     ? "needs dst=HOST"
		                                                            : "needs host=HOST");
	e.start_ns = (uint64_t)llround(start_us * 1000);
	e.end_ns = e.start_ns + (uint64_t)llround(dur_us * 1000);
	if (e.start_ns >= cfg->duration_ns) {
		snprintf(msg, sizeof(msg), "starts at %.0f us, after the run ends (%llu us)", start_us,
		         (unsigned long long)(cfg->duration_ns / 1000));
		return bad(err, errlen, spec, msg);
	}
	if (e.end_ns > cfg->duration_ns)
		e.end_ns = cfg->duration_ns;
	e.senders = (unsigned)senders;
	e.bps = (uint64_t)llround(gbps * 1e9);
	e.fraction = frac;
	e.mtu = (uint16_t)mtu;
	if (e.kind == SC_EV_LINK_DOWN || e.kind == SC_EV_MTU) {
		int32_t p = sc_topo_find_port(t, place);
		if (p < 0) {
			snprintf(msg, sizeof(msg), "link=%s: no such port (NODE:EthernetN or NODE:N)", place);
			return bad(err, errlen, spec, msg);
		}
		e.port = (uint32_t)p;
		e.node = t->ports[p].node;
		if (e.kind == SC_EV_MTU && e.mtu >= t->mtu) {
			snprintf(msg, sizeof(msg), "mtu=%u is not below the fabric's %u: no mismatch", e.mtu, t->mtu);
			return bad(err, errlen, spec, msg);
		}
	} else {
		int32_t n = sc_topo_find_node(t, place);
		if (n < 0) {
			snprintf(msg, sizeof(msg), "%s: no such node", place);
			return bad(err, errlen, spec, msg);
		}
		e.node = (uint32_t)n;
		int want_host = e.kind != SC_EV_REPORT_LOSS;
		if (want_host != (t->nodes[n].tier == SC_HOST)) {
			snprintf(msg, sizeof(msg), "%s is a %s, this event needs a %s", place,
			         t->nodes[n].tier == SC_HOST ? "host" : "switch", want_host ? "host" : "switch");
			return bad(err, errlen, spec, msg);
		}
		if (want_host)
			e.port = t->ports[t->nodes[n].port0].peer; /* the leaf's port that faces the host */
	}
	if (e.kind <= SC_EV_MICROBURST || e.kind == SC_EV_PFC_STORM) {
		if (e.bps > t->host_bps) {
			snprintf(msg, sizeof(msg), "gbps=%g: a sender cannot send faster than its %g Gb/s host link",
			         gbps, (double)t->host_bps / 1e9);
			return bad(err, errlen, spec, msg);
		}
		if (e.senders >= t->n_hosts) {
			snprintf(msg, sizeof(msg), "senders=%u: the fabric has only %u other hosts", e.senders,
			         t->n_hosts - 1);
			return bad(err, errlen, spec, msg);
		}
	}
	cfg->events[cfg->n_events++] = e;
	return 0;
}

/* ---- applying events ---- */

uint16_t sc_mfs_at(const struct sc_sim *s, uint32_t port, uint64_t now)
{
	uint16_t m = s->t->mtu;
	for (unsigned i = 0; i < s->cfg->n_events; i++) {
		const struct sc_event *e = &s->cfg->events[i];
		if (e->kind == SC_EV_MTU && e->port == port && sc_event_active(e, now) && e->mtu < m)
			m = e->mtu;
	}
	return m;
}

int sc_link_down_at(const struct sc_sim *s, uint32_t link, uint64_t now)
{
	for (unsigned i = 0; i < s->cfg->n_events; i++) {
		const struct sc_event *e = &s->cfg->events[i];
		if (e->kind == SC_EV_LINK_DOWN && s->t->ports[e->port].link == link && sc_event_active(e, now))
			return 1;
	}
	return 0;
}

static void reroute_all(struct sc_sim *s, unsigned ei, int mark)
{
	for (uint32_t i = 0; i < s->n_flows; i++)
		if (sc_flow_route(s, &s->flows[i]) && mark)
			s->flows[i].ev_mask |= (uint32_t)(1u << ei);
}

void sc_events_apply(struct sc_sim *s)
{
	struct sc_topo *t = s->t;
	const uint64_t now = s->now, prev = now >= s->cfg->step_ns ? now - s->cfg->step_ns : UINT64_MAX;
	for (unsigned i = 0; i < s->cfg->n_events; i++) {
		struct sc_event *e = &s->cfg->events[i];
		const int act = sc_event_active(e, now);
		const int was = prev != UINT64_MAX && sc_event_active(e, prev);
		const uint32_t bit = 1u << i;
		switch (e->kind) {
		case SC_EV_LINK_DOWN:
			if (act != was) { /* down while any link-down event on this link lasts */
				const uint8_t up = (uint8_t)!sc_link_down_at(s, t->ports[e->port].link, now);
				if (up != t->ports[e->port].up) {
					t->ports[e->port].up = t->ports[t->ports[e->port].peer].up = up;
					reroute_all(s, i, 1);
				}
			}
			break;
		case SC_EV_PFC_STORM: {
			uint32_t q = sc_q(e->port, SC_Q_ROCE);
			s->forced[q] = (uint8_t)act;
			if (!act)
				break;
			e->paused_steps++;
			for (uint32_t p = 0; p < t->n_ports; p++) {
				uint32_t x = sc_q(p, SC_Q_ROCE);
				if (s->paused[x] || s->forced[x])
					s->qev[x] |= bit;
			}
			for (uint32_t fi = 0; fi < s->n_flows; fi++) {
				struct sc_flow *f = &s->flows[fi];
				for (unsigned h = 0; h < f->n_hops; h++) {
					uint32_t x = sc_q(f->path[h], f->qid);
					if (s->paused[x] || s->forced[x])
						f->ev_mask |= bit;
				}
			}
			break;
		}
		case SC_EV_DSCP:
			for (uint32_t fi = 0; fi < s->n_flows; fi++) {
				struct sc_flow *f = &s->flows[fi];
				if (f->src != e->node || f->kind != SC_F_ROCE)
					continue;
				f->gf.dscp = act ? 0 : 26;
				f->qid = sc_dscp_queue(f->gf.dscp);
				if (act && f->start_ns <= now && now < f->end_ns)
					f->ev_mask |= bit;
			}
			break;
		case SC_EV_MTU:
			t->ports[e->port].mtu = sc_mfs_at(s, e->port, now);
			if (act)
				for (uint32_t fi = 0; fi < s->n_flows; fi++) {
					struct sc_flow *f = &s->flows[fi];
					for (unsigned h = 0; h + 1 < f->n_hops; h++)
						if (t->ports[f->path[h]].peer == e->port && f->pkt > e->mtu &&
						    (f->bps > 0 || f->kind != SC_F_CNP))
							f->ev_mask |= bit;
				}
			break;
		default: break;
		}
		if ((e->kind == SC_EV_INCAST || e->kind == SC_EV_MICROBURST) && act)
			for (uint32_t p = 0; p < t->n_ports; p++) /* the PFC tree the congestion spreads into */
				if (s->paused[sc_q(p, SC_Q_ROCE)])
					s->qev[sc_q(p, SC_Q_ROCE)] |= bit;
		if (e->kind == SC_EV_INCAST || e->kind == SC_EV_MICROBURST || e->kind == SC_EV_PFC_STORM) {
			/* the queue the event is about: its peak while the event lasts and as long again after */
			uint64_t tail = e->end_ns - e->start_ns;
			uint32_t q = sc_q(e->port, SC_Q_ROCE);
			if (now >= e->start_ns && now < e->end_ns + tail && s->occ[q] > e->peak_bytes)
				e->peak_bytes = s->occ[q];
		}
	}
}
