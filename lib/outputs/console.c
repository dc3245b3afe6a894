/* The live fabric console of `hopwatch-analyzer run --http`: the page (console/, embedded at build time), and the
 * JSON it polls (fabric map, incidents, a queue's last 2 s at 1 ms) from snapshots swapped under a mutex. */
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alert_text.h"
#include "an_attr.h"
#include "an_outputs.h"
#include "clock.h"
#include "console_assets.h"
#include "hopwatch/metrics_http.h"

#define RING_MS 2048      /* per-queue ring: the last 2,048 ms of record time at 1 ms */
#define RINGS_MAX 1024    /* queues with a ring (32 KiB each, allocated on a queue's first record) */
#define HASH_SIZE 2048    /* open addressing over the rings: a power of two, twice RINGS_MAX */
#define INCIDENTS 256     /* episodes listed: open ones, then the most recent */
#define REFRESH_S 0.2     /* snapshots after a batch at most this often (monotonic) */
#define QUEUE_WINDOW 2000 /* ms served by /api/queue */
#define MARKS 64          /* latency matrix marks, one per second of record time: windows up to 60 s */
#define LAT_REFRESH_S 1.0 /* the latency matrix's JSON at most this often (monotonic) */
/* A link flaps when its state changed (a LinkDown or LinkUp from a reload of the topology's sources) more than
 * FLAP_CHANGES times in the last FLAP_WINDOW_S seconds (the events' times: the reloads' wall clock). */
#define FLAP_CHANGES 3
#define FLAP_WINDOW_S 600
#define FLAP_KEEP (FLAP_CHANGES + 1) /* the latest changes kept per link: enough to tell */

/* The windows of /api/latency in seconds of record time; 0 = the whole run. */
static const unsigned lat_windows[] = {0, 1, 10, 60};
#define N_WINDOWS (sizeof(lat_windows) / sizeof(lat_windows[0]))

struct slot {
	uint64_t ms; /* record time in ms + 1; 0 = empty */
	uint32_t occ, lat;
};

struct ring {
	uint32_t node_id, port;
	int queue;
	uint64_t last_ms; /* newest ms + 1 */
	struct slot s[RING_MS];
};

struct link_live {                     /* a topology link's state from the reloads' LinkDown and LinkUp events */
	uint64_t change_ns[FLAP_KEEP]; /* its latest changes, a ring; 0 = none */
	unsigned next;
	int down; /* its latest change was a LinkDown */
};

struct incident {
	uint64_t id, incident, start_ns, end_ns; /* end_ns 0: open */
	char alertname[32];
	const char *severity;
	char node[HW_TOPO_NAME_MAX], port[HW_TOPO_NAME_MAX];
	uint32_t node_id, port_id;
	int queue;
	char victims[256];
	char svg[128];
	unsigned flows;
	char detail[256];
	char summary[HW_ALERT_VAL_MAX]; /* the alert's summary as it was raised (alert_text.c): the row's tooltip */
	int attributed;                 /* run --pods / --ident-map: whose traffic is known */
	unsigned unattributed;          /* its flows whose sender or receiver has no job */
	char senders[HW_AN_JOBS_MAX];   /* sender jobs, comma-separated */
	char receivers[HW_AN_JOBS_MAX]; /* receiver jobs */
};

struct console {
	struct an_output base;
	struct hw_metrics_http *http;
	const struct hw_topo *topo;
	double next; /* next refresh after a batch, monotonic seconds */
	pthread_mutex_t mu;
	char *fabric, *incidents;      /* JSON snapshots, under mu */
	struct ring *rings[RINGS_MAX]; /* the rings and hash: written under mu by the ingest thread */
	uint16_t hash[HASH_SIZE];      /* ring index + 1; 0 = empty */
	unsigned n_rings;
	uint64_t rings_full;            /* records of queues that found no ring */
	struct incident inc[INCIDENTS]; /* ingest thread only */
	struct hw_alert_kv ann;         /* an incident's annotations, being made (ingest thread) */
	unsigned n_inc;
	double *scores;
	uint32_t *port_state;               /* per topology port: worst queue state */
	struct link_live *live;             /* per topology link (ingest thread) */
	struct hw_an_lat_mark *mark[MARKS]; /* ingest thread: the matrix at each second of record time, a ring */
	uint64_t mark_ns[MARKS];            /* record time of each mark; 0 = none */
	unsigned mark_next;
	double lat_next;                               /* next latency JSON, monotonic seconds */
	char *latency[N_WINDOWS];                      /* JSON per window, under mu */
	struct an_output *attr;                        /* the jobs (an_attr.h), NULL without --pods / --ident-map */
	char job[HW_AN_LAT_GROUPS][HW_IDENT_NAME_MAX]; /* latency group g's job, under mu */
	char *job_latency[HW_AN_LAT_GROUPS];           /* its matrix over the whole run as JSON, under mu */
	unsigned n_jobs;                               /* under mu */
};

static unsigned ring_hash(uint32_t node, uint32_t port, int queue)
{
	uint64_t h = ((uint64_t)node * 0x9E3779B97F4A7C15u) ^ ((uint64_t)port * 0xC2B2AE3D27D4EB4Fu) ^ (uint64_t)queue;
	return (unsigned)(h ^ (h >> 29)) & (HASH_SIZE - 1);
}

/* The ring of a queue (under mu); with make, allocated when new and there is room; NULL when none. */
static struct ring *ring_of(struct console *c, uint32_t node, uint32_t port, int queue, int make)
{
	unsigned h = ring_hash(node, port, queue);
	for (; c->hash[h]; h = (h + 1) & (HASH_SIZE - 1)) {
		struct ring *g = c->rings[c->hash[h] - 1];
		if (g->node_id == node && g->port == port && g->queue == queue)
			return g;
	}
	if (!make || c->n_rings == RINGS_MAX)
		return NULL;
	struct ring *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->node_id = node;
	g->port = port;
	g->queue = queue;
	c->rings[c->n_rings++] = g;
	c->hash[h] = (uint16_t)c->n_rings;
	return g;
}

/* Each record with a queue and an egress port: the ms slot of its queue keeps the highest occupancy and hop
 * latency. */
static void console_records(struct an_output *o, const struct hw_analyzer *a, const struct hw_record *r, size_t n)
{
	struct console *c = (struct console *)o;
	(void)a;
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < n; i++) {
		const struct hw_record *x = &r[i];
		if (!(x->valid & HW_V_QUEUE) || !(x->valid & HW_V_PORTS) || x->egress_port == HW_PORT_NONE)
			continue;
		struct ring *g = ring_of(c, x->node_id, x->egress_port, x->queue_id, 1);
		if (!g) {
			c->rings_full++;
			continue;
		}
		uint64_t ms = x->time_ns / 1000000u + 1;
		struct slot *s = &g->s[ms % RING_MS];
		if (s->ms != ms)
			*s = (struct slot){ms, 0, 0};
		if (x->queue_occupancy > s->occ)
			s->occ = x->queue_occupancy;
		if ((x->valid & HW_V_HOP_LATENCY) && x->hop_latency > s->lat)
			s->lat = x->hop_latency;
		if (ms > g->last_ms)
			g->last_ms = ms;
	}
	pthread_mutex_unlock(&c->mu);
}

/* 0 ok, 1 warning (at half a threshold), 2 alarm (at a threshold, or an episode active on the queue). */
static int queue_state(const struct hw_an_queue_info *q)
{
	if (q->active || (q->raise > 0 && q->peak_occ >= q->raise) || (q->lat_raise > 0 && q->peak_lat >= q->lat_raise))
		return 2;
	if ((q->raise > 0 && q->peak_occ * 2.0 >= q->raise) || (q->lat_raise > 0 && q->peak_lat * 2.0 >= q->lat_raise))
		return 1;
	return 0;
}

static const char *tier_name(uint8_t t)
{
	switch (t) {
	case HW_TIER_HOST: return "host";
	case HW_TIER_LEAF: return "leaf";
	case HW_TIER_SPINE: return "spine";
	case HW_TIER_SUPERSPINE: return "superspine";
	default: return "unknown";
	}
}

/* The peer (node index, port index) of topology port p, HW_TOPO_NONE when it has no link. */
static uint32_t peer_port(const struct hw_topo *t, uint32_t p)
{
	uint32_t l = t->ports[p].link;
	if (l == HW_TOPO_NONE)
		return HW_TOPO_NONE;
	return t->links[l].a == p ? t->links[l].b : t->links[l].a;
}

/* A link's condition as the map draws it: down, a mismatch of its ends, or up. */
static const char *link_cond(const struct hw_topo_link *k)
{
	return !k->up || (k->flags & HW_LINK_GONE) ? "down"
	       : k->flags & HW_LINK_MTU_MISMATCH   ? "mtu-mismatch"
	       : k->flags & HW_LINK_PFC_MISMATCH   ? "pfc-mismatch"
	       : k->flags & HW_LINK_ONE_SIDED      ? "one-sided"
	                                           : "up";
}

/* A link's changes in the FLAP_WINDOW_S before now_ns. */
static unsigned link_changes(const struct link_live *k, uint64_t now_ns)
{
	unsigned n = 0;
	for (unsigned i = 0; i < FLAP_KEEP; i++)
		n += k->change_ns[i] && k->change_ns[i] + (uint64_t)FLAP_WINDOW_S * 1000000000u >= now_ns;
	return n;
}

/* link_cond with the reloads' state over it: flapping, else down while its LinkDown fires. */
static const char *link_cond_live(const struct console *c, uint32_t l, uint64_t now_ns)
{
	const struct link_live *k = &c->live[l];
	return link_changes(k, now_ns) > FLAP_CHANGES ? "flapping" : k->down ? "down" : link_cond(&c->topo->links[l]);
}

/* A LinkDown raised, or a LinkUp after one (a reload's, hw_an_topology_changes, or the LLDP capture's): a change
 * of its link's state.  The link by its first end's node and port names (the event's node and port). */
static void link_event(struct console *c, const struct hw_an_event *e)
{
	const struct hw_topo *t = c->topo;
	int down = !strcmp(e->alertname, "LinkDown");
	if (!t || e->resolved || (!down && strcmp(e->alertname, "LinkUp")))
		return;
	for (uint32_t n = 0; n < t->n_nodes; n++) {
		if (strcmp(t->nodes[n].name, e->node))
			continue;
		for (uint32_t p = t->nodes[n].first_port; p != HW_TOPO_NONE; p = t->ports[p].next)
			if (!strcmp(t->ports[p].name, e->port_name) && t->ports[p].link != HW_TOPO_NONE) {
				struct link_live *k = &c->live[t->ports[p].link];
				if (!down && !k->down)
					return; /* up and up: a link first heard (or new in LLDP), no change */
				k->change_ns[k->next] = e->start_ns ? e->start_ns : 1;
				k->next = (k->next + 1) % FLAP_KEEP;
				k->down = down;
				return;
			}
	}
}

/* The fabric: switches (their ports, the queues on each, hosts folded into a count) and the links between
 * switches, each with the worst state of its ends' queues and its congestion score. */
static json_t *fabric_json(struct console *c, const struct hw_analyzer *a)
{
	const struct hw_topo *t = c->topo;
	json_t *root = json_object(), *sw = json_array(), *links = json_array();
	uint64_t now = hw_an_now(a);
	char when[48];
	hw_utc_text(now, when, sizeof(when));
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	json_object_set_new(root, "time_ns", json_integer((json_int_t)now));
	json_object_set_new(root, "time", json_string(now ? when : ""));
	/* when this snapshot was taken (CLOCK_REALTIME): how far the console is behind the records it shows */
	uint64_t wall = hw_real_ns();
	json_object_set_new(root, "wall_ns", json_integer((json_int_t)wall));
	json_object_set_new(root, "records", json_integer((json_int_t)st.records));
	json_object_set_new(root, "rings", json_integer(c->n_rings));
	json_object_set_new(root, "rings_max", json_integer(RINGS_MAX));
	json_object_set_new(root, "switches", sw);
	json_object_set_new(root, "links", links);
	if (!t)
		return root;
	/* the queues per topology port */
	json_t **pq = calloc(t->n_ports ? t->n_ports : 1, sizeof(*pq));
	memset(c->port_state, 0, t->n_ports * sizeof(*c->port_state));
	uint32_t nq = hw_an_queue_count(a);
	for (uint32_t i = 0; pq && i < nq; i++) {
		struct hw_an_queue_info q;
		if (hw_an_queue_get(a, i, &q) || q.topo_port == HW_TOPO_NONE || q.topo_port >= t->n_ports)
			continue;
		int s = queue_state(&q);
		if ((uint32_t)s > c->port_state[q.topo_port])
			c->port_state[q.topo_port] = (uint32_t)s;
		if (!pq[q.topo_port])
			pq[q.topo_port] = json_array();
		json_array_append_new(pq[q.topo_port],
		                      json_pack("{s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:i}", "queue", q.queue,
		                                "node_id", (json_int_t)q.node_id, "port_id", (json_int_t)q.port, "occ",
		                                (json_int_t)q.last_occ, "peak_occ", (json_int_t)q.peak_occ, "lat",
		                                (json_int_t)q.last_lat, "peak_lat", (json_int_t)q.peak_lat, "raise",
		                                q.raise, "lat_raise", q.lat_raise, "state", s));
	}
	if (c->scores)
		hw_an_link_scores(a, c->scores);
	for (uint32_t n = 0; n < t->n_nodes; n++) {
		const struct hw_topo_node *nd = &t->nodes[n];
		if (nd->tier == HW_TIER_HOST)
			continue;
		json_t *ports = json_array();
		int worst = 0, hosts = 0, host_worst = 0;
		for (uint32_t p = nd->first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
			uint32_t pp = peer_port(t, p);
			const struct hw_topo_node *peer = pp == HW_TOPO_NONE ? NULL : &t->nodes[t->ports[pp].node];
			int s = (int)c->port_state[p];
			if (s > worst)
				worst = s;
			if (peer && peer->tier == HW_TIER_HOST) {
				hosts++;
				if (s > host_worst)
					host_worst = s;
			}
			json_t *jp =
			    json_pack("{s:s,s:s,s:s,s:s,s:i}", "name", t->ports[p].name, "peer", peer ? peer->name : "",
			              "peer_port", pp == HW_TOPO_NONE ? "" : t->ports[pp].name, "peer_tier",
			              peer ? tier_name(peer->tier) : "", "state", s);
			uint32_t l = t->ports[p].link;
			/* a host's link: not among "links", drawn when its leaf unfolds */
			if (l != HW_TOPO_NONE && peer && peer->tier == HW_TIER_HOST) {
				json_object_set_new(jp, "link", json_string(link_cond_live(c, l, wall)));
				json_object_set_new(jp, "score", json_real(c->scores ? c->scores[l] : 0.0));
			}
			json_object_set_new(jp, "queues", pq && pq[p] ? pq[p] : json_array());
			if (pq)
				pq[p] = NULL;
			json_array_append_new(ports, jp);
		}
		json_t *js =
		    json_pack("{s:s,s:s,s:I,s:i,s:i,s:i}", "name", nd->name, "tier", tier_name(nd->tier), "node_id",
		              (json_int_t)nd->node_id, "state", worst, "hosts", hosts, "hosts_state", host_worst);
		json_object_set_new(js, "ports", ports);
		json_array_append_new(sw, js);
	}
	for (uint32_t l = 0; l < t->n_links; l++) {
		const struct hw_topo_link *k = &t->links[l];
		const struct hw_topo_port *pa = &t->ports[k->a], *pb = &t->ports[k->b];
		const struct hw_topo_node *na = &t->nodes[pa->node], *nb = &t->nodes[pb->node];
		if (na->tier == HW_TIER_HOST || nb->tier == HW_TIER_HOST)
			continue;
		uint32_t s = c->port_state[k->a] > c->port_state[k->b] ? c->port_state[k->a] : c->port_state[k->b];
		const char *cond = link_cond_live(c, l, wall);
		json_array_append_new(links, json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:f}", "a", na->name, "ap", pa->name,
		                                       "b", nb->name, "bp", pb->name, "link", cond, "state", (int)s,
		                                       "score", c->scores ? c->scores[l] : 0.0));
	}
	if (pq)
		for (uint32_t p = 0; p < t->n_ports; p++)
			json_decref(pq[p]);
	free(pq);
	return root;
}

/* The incidents, open first, then the most recent first. */
static json_t *incidents_json(const struct console *c)
{
	json_t *arr = json_array();
	for (int open = 1; open >= 0; open--)
		for (unsigned k = c->n_inc; k-- > 0;) {
			const struct incident *x = &c->inc[k];
			if ((x->end_ns == 0) != open)
				continue;
			char start[48], end[48] = "";
			hw_utc_text(x->start_ns, start, sizeof(start));
			if (x->end_ns)
				hw_utc_text(x->end_ns, end, sizeof(end));
			json_t *j =
			    json_pack("{s:I,s:I,s:s,s:s,s:b,s:s,s:s,s:I,s:I,s:i,s:s,s:I,s:s,s:s,s:i,s:s}", "id",
			              (json_int_t)x->id, "incident", (json_int_t)x->incident, "kind", x->alertname,
			              "severity", x->severity ? x->severity : "warning", "open", open, "node", x->node,
			              "port", x->port, "node_id", (json_int_t)x->node_id, "port_id",
			              (json_int_t)(x->port_id == UINT32_MAX ? -1 : (json_int_t)x->port_id), "queue",
			              x->queue, "victims", x->victims, "start_ns", (json_int_t)x->start_ns, "start",
			              start, "end", end, "flows", (int)x->flows, "detail", x->detail);
			json_object_set_new(j, "summary", json_string(x->summary));
			json_object_set_new(j, "end_ns", json_integer((json_int_t)x->end_ns));
			if (x->end_ns)
				json_object_set_new(j, "duration_ms",
				                    json_real((double)(x->end_ns - x->start_ns) / 1e6));
			if (x->svg[0])
				json_object_set_new(j, "svg", json_string(x->svg));
			if (x->attributed) /* whose traffic: the alert's sender_jobs and receiver_jobs */
				json_object_set_new(j, "jobs",
				                    json_pack("{s:s,s:s,s:i}", "senders", x->senders, "receivers",
				                              x->receivers, "unattributed_flows",
				                              (int)x->unattributed));
			json_array_append_new(arr, j);
		}
	return arr;
}

/* The victims of a congestion tree rooted at the event's queue, as "node:port" names. */
static void victims_of(const struct console *c, const struct hw_analyzer *a, const struct hw_an_event *e, char *buf,
                       size_t n)
{
	buf[0] = 0;
	long qi = e->node_id ? hw_an_queue_find(a, e->node_id, e->port, e->queue) : -1;
	struct hw_an_queue_info q;
	if (qi < 0 || hw_an_queue_get(a, (uint32_t)qi, &q))
		return;
	size_t used = 0;
	for (unsigned v = 0; v < q.n_victims && used + 1 < n; v++) {
		struct hw_an_queue_info w;
		if (hw_an_queue_get(a, q.victims[v], &w))
			continue;
		char name[2 * HW_TOPO_NAME_MAX + 24];
		if (c->topo && w.topo_port != HW_TOPO_NONE)
			snprintf(name, sizeof(name), "%s:%s", c->topo->nodes[c->topo->ports[w.topo_port].node].name,
			         c->topo->ports[w.topo_port].name);
		else
			snprintf(name, sizeof(name), "%" PRIu32 ":%" PRIu32, w.node_id, w.port);
		int k = snprintf(buf + used, n - used, "%s%s q%d", used ? ", " : "", name, w.queue);
		if (k < 0 || (size_t)k >= n - used)
			break;
		used += (size_t)k;
	}
}

static void incident_jobs(struct incident *x, const struct hw_an_event *e)
{
	x->attributed = e->attributed;
	x->unattributed = e->unattributed_flows;
	snprintf(x->senders, sizeof(x->senders), "%s", e->sender_jobs);
	snprintf(x->receivers, sizeof(x->receivers), "%s", e->receiver_jobs);
}

static void console_on_event(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
                             const char *svg)
{
	struct console *c = (struct console *)o;
	link_event(c, e);
	for (unsigned k = 0; k < c->n_inc; k++)
		if (c->inc[k].id == e->id && !strcmp(c->inc[k].alertname, e->alertname)) {
			if (e->resolved)
				c->inc[k].end_ns = e->end_ns ? e->end_ns : hw_an_now(a);
			incident_jobs(&c->inc[k], e); /* the flows known by the resolve may name more jobs */
			return;
		}
	if (e->resolved)
		return;              /* its raise is no longer listed */
	if (c->n_inc == INCIDENTS) { /* forget the oldest resolved one, else the oldest */
		unsigned drop = 0;
		for (unsigned k = 0; k < c->n_inc; k++)
			if (c->inc[k].end_ns) {
				drop = k;
				break;
			}
		memmove(&c->inc[drop], &c->inc[drop + 1], (c->n_inc - drop - 1) * sizeof(c->inc[0]));
		c->n_inc--;
	}
	struct incident *x = &c->inc[c->n_inc++];
	memset(x, 0, sizeof(*x));
	x->id = e->id;
	x->incident = e->incident;
	x->start_ns = e->start_ns;
	snprintf(x->alertname, sizeof(x->alertname), "%s", e->alertname);
	x->severity = e->severity;
	snprintf(x->node, sizeof(x->node), "%s", e->node);
	snprintf(x->port, sizeof(x->port), "%s", e->port_name);
	x->node_id = e->node_id;
	x->port_id = e->port;
	x->queue = e->queue;
	x->flows = e->n_flows;
	snprintf(x->detail, sizeof(x->detail), "%s", e->detail);
	hw_alert_annotations(e, NULL, NULL, &c->ann); /* the words the alert's notification says */
	snprintf(x->summary, sizeof(x->summary), "%s", c->ann.n ? c->ann.kv[0].v : "");
	const char *base = svg ? strrchr(svg, '/') : NULL;
	snprintf(x->svg, sizeof(x->svg), "%s", base ? base + 1 : svg ? svg : "");
	victims_of(c, a, e, x->victims, sizeof(x->victims));
	incident_jobs(x, e);
}

/* A mark of the matrix each second of record time; the oldest forgotten. */
static void lat_mark(struct console *c, const struct hw_analyzer *a)
{
	uint64_t now = hw_an_now(a);
	unsigned newest = (c->mark_next + MARKS - 1) % MARKS;
	if (!now || (c->mark_ns[newest] && now < c->mark_ns[newest] + 1000000000u))
		return;
	struct hw_an_lat_mark *k = hw_an_lat_mark(hw_an_latency(a));
	if (!k)
		return; /* out of memory: the windows reach further back */
	hw_an_lat_mark_free(c->mark[c->mark_next]);
	c->mark[c->mark_next] = k;
	c->mark_ns[c->mark_next] = now;
	c->mark_next = (c->mark_next + 1) % MARKS;
}

/* Matrix m (the analyzer's, or a job's: then over the whole run, w 0) over the last w seconds of record time
 * (0: the whole run), from the newest mark at least w old (none: the run is younger than w, all of it is in the
 * window): leaves in output order, non-empty cells as [source index, destination index, reports, mean ns, p99.9
 * ns]; jobs: the jobs with a matrix of their own. */
static json_t *latency_json(const struct console *c, const struct hw_analyzer *a, const struct hw_an_latmatrix *m,
                            unsigned w, json_t *jobs)
{
	uint64_t now = hw_an_now(a), from = 0;
	const struct hw_an_lat_mark *base = NULL;
	for (unsigned k = 0; w && k < MARKS; k++)
		if (c->mark_ns[k] && c->mark_ns[k] + (uint64_t)w * 1000000000u <= now && c->mark_ns[k] > from) {
			from = c->mark_ns[k];
			base = c->mark[k];
		}
	struct hw_an_lat_stats st;
	hw_an_lat_stats(m, &st);
	uint32_t order[HW_AN_LAT_LEAVES];
	uint32_t n = hw_an_lat_order(m, order);
	char f[48] = "", t[48] = "";
	if (from)
		hw_utc_text(from, f, sizeof(f));
	if (now)
		hw_utc_text(now, t, sizeof(t));
	json_t *leaves = json_array(), *cells = json_array();
	json_t *root = json_pack("{s:i,s:I,s:s,s:I,s:s,s:I}", "window_s", (int)w, "from_ns", (json_int_t)from, "from",
	                         f, "to_ns", (json_int_t)now, "to", t, "reports", (json_int_t)st.reports);
	json_object_set_new(root, "leaves", leaves);
	json_object_set_new(root, "cells", cells);
	json_object_set_new(root, "jobs", jobs);
	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(leaves, json_string(hw_an_lat_leaf_name(m, order[i])));
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			struct hw_an_lat_cell x;
			if (hw_an_lat_cell_since(m, base, order[i], order[j], &x) != 1)
				continue;
			json_array_append_new(cells, json_pack("[i,i,I,f,I]", (int)i, (int)j, (json_int_t)x.count,
			                                       x.avg, (json_int_t)x.p999));
		}
	return root;
}

/* The latency JSON of every window, at most every LAT_REFRESH_S. */
static void refresh_latency(struct console *c, const struct hw_analyzer *a)
{
	double now = hw_mono_s();
	if (now < c->lat_next)
		return;
	c->lat_next = now + LAT_REFRESH_S;
	const char *names[HW_AN_LAT_GROUPS];
	unsigned n_jobs = an_attr_jobs(c->attr, names, HW_AN_LAT_GROUPS);
	json_t *jobs = json_array();
	for (unsigned g = 0; g < n_jobs; g++)
		json_array_append_new(jobs, json_string(names[g]));
	char *js[N_WINDOWS], *jl[HW_AN_LAT_GROUPS] = {0};
	for (unsigned w = 0; w < N_WINDOWS; w++) {
		json_t *j = latency_json(c, a, hw_an_latency(a), lat_windows[w], json_copy(jobs));
		js[w] = json_dumps(j, JSON_COMPACT);
		json_decref(j);
	}
	for (unsigned g = 0; g < n_jobs; g++) { /* a job's matrix: hw_an_latency_groups', over the whole run */
		const struct hw_an_latmatrix *m = hw_an_latency_group(a, g);
		if (!m)
			continue;
		json_t *j = latency_json(c, a, m, 0, json_copy(jobs));
		json_object_set_new(j, "job", json_string(names[g]));
		jl[g] = json_dumps(j, JSON_COMPACT);
		json_decref(j);
	}
	json_decref(jobs);
	pthread_mutex_lock(&c->mu);
	for (unsigned w = 0; w < N_WINDOWS; w++) {
		char *old = c->latency[w];
		c->latency[w] = js[w];
		js[w] = old;
	}
	for (unsigned g = 0; g < n_jobs; g++) {
		snprintf(c->job[g], sizeof(c->job[g]), "%s", names[g]);
		char *old = c->job_latency[g];
		c->job_latency[g] = jl[g];
		jl[g] = old;
	}
	c->n_jobs = n_jobs;
	pthread_mutex_unlock(&c->mu);
	for (unsigned w = 0; w < N_WINDOWS; w++)
		free(js[w]);
	for (unsigned g = 0; g < n_jobs; g++)
		free(jl[g]);
}

static void refresh(struct console *c, const struct hw_analyzer *a)
{
	refresh_latency(c, a);
	json_t *f = fabric_json(c, a), *i = incidents_json(c);
	char *fs = json_dumps(f, JSON_COMPACT), *is = json_dumps(i, JSON_COMPACT);
	json_decref(f);
	json_decref(i);
	if (!fs || !is) {
		free(fs);
		free(is);
		return;
	}
	pthread_mutex_lock(&c->mu);
	char *of = c->fabric, *oi = c->incidents;
	c->fabric = fs;
	c->incidents = is;
	pthread_mutex_unlock(&c->mu);
	free(of);
	free(oi);
}

/* After a batch at most every REFRESH_S (monotonic); at the end and while holding, every time. */
static void console_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct console *c = (struct console *)o;
	lat_mark(c, a); /* every tick, so marks are a second of record time apart, give or take a batch */
	if (an_tick_refresh(t, &c->next, REFRESH_S))
		refresh(c, a);
}

static int reply_copy(struct hw_metrics_http_reply *r, const char *body, const char *type)
{
	r->len = strlen(body);
	r->body = malloc(r->len + 1);
	if (!r->body) {
		r->len = 0;
		r->status = 503;
		return 1;
	}
	memcpy(r->body, body, r->len + 1);
	r->type = type;
	return 1;
}

/* GET /api/queue?node=ID&port=ID&queue=Q: the ring's last QUEUE_WINDOW ms, newest last, one [ms, occ, lat] per
 * ms with records (ms since the epoch). */
static int queue_reply(struct console *c, const struct hw_metrics_http_request *q, struct hw_metrics_http_reply *r)
{
	const char *sn = hw_metrics_http_query(q, "node"), *sp = hw_metrics_http_query(q, "port"),
	           *sq = hw_metrics_http_query(q, "queue");
	char *e1, *e2, *e3;
	unsigned long long node = sn ? strtoull(sn, &e1, 10) : 0, port = sp ? strtoull(sp, &e2, 10) : 0;
	long queue = sq ? strtol(sq, &e3, 10) : -1;
	if (!sn || !sp || !sq || *e1 || *e2 || *e3 || !*sn || !*sp || !*sq || node > UINT32_MAX || port > UINT32_MAX ||
	    queue < 0 || queue > 255) {
		r->status = 400;
		return reply_copy(r, "{\"error\":\"expected node=INT node id&port=INT port&queue=0..255\"}\n",
		                  "application/json");
	}
	struct slot *copy = malloc(sizeof(struct slot) * RING_MS);
	if (!copy) {
		r->status = 503;
		return reply_copy(r, "{\"error\":\"out of memory\"}\n", "application/json");
	}
	uint64_t last = 0;
	pthread_mutex_lock(&c->mu);
	struct ring *g = ring_of(c, (uint32_t)node, (uint32_t)port, (int)queue, 0);
	if (g) {
		memcpy(copy, g->s, sizeof(struct slot) * RING_MS);
		last = g->last_ms;
	}
	pthread_mutex_unlock(&c->mu);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		free(copy);
		r->status = 503;
		return reply_copy(r, "{\"error\":\"out of memory\"}\n", "application/json");
	}
	fprintf(f, "{\"node_id\":%llu,\"port_id\":%llu,\"queue\":%ld,\"known\":%s,\"window_ms\":%d,\"points\":[", node,
	        port, queue, g ? "true" : "false", QUEUE_WINDOW);
	int first = 1;
	uint64_t from = last > QUEUE_WINDOW ? last - QUEUE_WINDOW + 1 : 1;
	for (uint64_t ms = from; last && ms <= last; ms++) {
		const struct slot *s = &copy[ms % RING_MS];
		if (s->ms != ms)
			continue;
		fprintf(f, "%s[%" PRIu64 ",%" PRIu32 ",%" PRIu32 "]", first ? "" : ",", ms - 1, s->occ, s->lat);
		first = 0;
	}
	fprintf(f, "]}\n");
	fclose(f);
	free(copy);
	r->body = buf;
	r->len = len;
	r->type = "application/json";
	return 1;
}

/* GET /api/latency?job=NAME: that job's matrix (its senders' reports) over the whole run. */
static int job_latency_reply(struct console *c, const char *job, const char *sw, struct hw_metrics_http_reply *r)
{
	if (sw && strcmp(sw, "0")) {
		r->status = 400;
		return reply_copy(r, "{\"error\":\"a job's matrix is over the whole run: window=0 or none\"}\n",
		                  "application/json");
	}
	pthread_mutex_lock(&c->mu);
	unsigned g = 0;
	while (g < c->n_jobs && strcmp(c->job[g], job))
		g++;
	if (g < c->n_jobs && c->job_latency[g])
		reply_copy(r, c->job_latency[g], "application/json");
	else {
		r->status = 404;
		reply_copy(r, "{\"error\":\"no job of that name has sent reports (run --pods or --ident-map)\"}\n",
		           "application/json");
	}
	pthread_mutex_unlock(&c->mu);
	return 1;
}

/* GET /api/latency?window=S (S one of lat_windows; none: the whole run); with job=NAME, job_latency_reply. */
static int latency_reply(struct console *c, const struct hw_metrics_http_request *q, struct hw_metrics_http_reply *r)
{
	const char *sw = hw_metrics_http_query(q, "window"), *job = hw_metrics_http_query(q, "job");
	if (job)
		return job_latency_reply(c, job, sw, r);
	unsigned w = N_WINDOWS;
	for (unsigned k = 0; k < N_WINDOWS; k++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%u", lat_windows[k]);
		if (!sw ? lat_windows[k] == 0 : !strcmp(sw, buf))
			w = k;
	}
	if (w == N_WINDOWS) {
		r->status = 400;
		return reply_copy(r, "{\"error\":\"expected window=0 (the whole run), 1, 10 or 60 (seconds)\"}\n",
		                  "application/json");
	}
	pthread_mutex_lock(&c->mu);
	reply_copy(r, c->latency[w] ? c->latency[w] : "{\"pending\":true,\"leaves\":[],\"cells\":[]}",
	           "application/json");
	pthread_mutex_unlock(&c->mu);
	return 1;
}

static int console_route(void *arg, const char *url, const struct hw_metrics_http_request *q,
                         struct hw_metrics_http_reply *r)
{
	struct console *c = arg;
	if (!strcmp(url, "/api/queue"))
		return queue_reply(c, q, r);
	if (!strcmp(url, "/api/latency"))
		return latency_reply(c, q, r);
	if (!strcmp(url, "/api/fabric") || !strcmp(url, "/api/incidents")) {
		int fab = url[5] == 'f';
		pthread_mutex_lock(&c->mu);
		const char *s = fab ? c->fabric : c->incidents;
		reply_copy(r, s ? s : (fab ? "{\"pending\":true,\"switches\":[],\"links\":[]}" : "[]"),
		           "application/json");
		pthread_mutex_unlock(&c->mu);
		return 1;
	}
	if (!strcmp(url, "/") || !strcmp(url, "/console"))
		url = "/console/"; /* the page names its script and styles by absolute paths */
	for (const struct an_console_asset *k = an_console_assets; k->path; k++)
		if (!strcmp(url, k->path)) {
			r->body = malloc(k->len ? k->len : 1);
			if (!r->body) {
				r->status = 503;
				return 1;
			}
			memcpy(r->body, k->data, k->len);
			r->len = k->len;
			r->type = k->type;
			return 1;
		}
	return 0;
}

static void console_summary(struct an_output *o, FILE *f)
{
	struct console *c = (struct console *)o;
	pthread_mutex_lock(&c->mu);
	fprintf(f, ",\"console\":{\"rings\":%u,\"rings_max\":%d,\"records_without_ring\":%" PRIu64 "}", c->n_rings,
	        RINGS_MAX, c->rings_full);
	pthread_mutex_unlock(&c->mu);
}

static void console_free(struct console *c)
{
	for (unsigned i = 0; i < c->n_rings; i++)
		free(c->rings[i]);
	free(c->fabric);
	free(c->incidents);
	free(c->scores);
	free(c->port_state);
	free(c->live);
	for (unsigned k = 0; k < MARKS; k++)
		hw_an_lat_mark_free(c->mark[k]);
	for (unsigned w = 0; w < N_WINDOWS; w++)
		free(c->latency[w]);
	for (unsigned g = 0; g < HW_AN_LAT_GROUPS; g++)
		free(c->job_latency[g]);
	free(c);
}

static void console_close(struct an_output *o)
{
	struct console *c = (struct console *)o;
	hw_metrics_http_stop(c->http);
	pthread_mutex_destroy(&c->mu);
	console_free(c);
}

static const struct an_output_ops console_ops = {.on_event = console_on_event,
                                                 .tick = console_tick,
                                                 .records = console_records,
                                                 .summary = console_summary,
                                                 .close = console_close};

struct an_output *an_out_console(const struct an_console_opts *o, char *err, size_t errlen)
{
	struct console *c = calloc(1, sizeof(*c));
	const struct hw_topo *t = o->topo;
	if (c && t) {
		c->scores = calloc(t->n_links ? t->n_links : 1, sizeof(*c->scores));
		c->port_state = calloc(t->n_ports ? t->n_ports : 1, sizeof(*c->port_state));
		c->live = calloc(t->n_links ? t->n_links : 1, sizeof(*c->live));
	}
	if (!c || (t && (!c->scores || !c->port_state || !c->live))) {
		if (c)
			console_free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->base.ops = &console_ops;
	c->topo = t;
	c->attr = o->attr;
	pthread_mutex_init(&c->mu, NULL);
	if (!(c->http = hw_metrics_http_start_routes(o->addr, NULL, c, o->svg_dir, console_route, err, errlen))) {
		pthread_mutex_destroy(&c->mu);
		console_free(c);
		return NULL;
	}
	return &c->base;
}
