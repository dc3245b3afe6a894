/* Scenario jobs (--jobs N): the hosts split into N training jobs, DIR/pods.json as `kubectl get pods -A -o json`
 * shows them (one host-networking pod per host), and each queue event's culprit and victim jobs for truth.json. */
#include <jansson.h>
#include <string.h>

#include "scen.h"

/* Host node h's job: the hosts in blocks of consecutive hosts (a scheduler keeps a job under few leaves), the
 * blocks turned by the seed so seeds differ in which hosts share a job. */
unsigned sc_job_of(const struct sc_sim *s, uint32_t h)
{
	const struct sc_topo *t = s->t;
	uint64_t i = (h - t->first_host + s->cfg->seed * 7) % t->n_hosts;
	return (unsigned)(i * s->cfg->jobs / t->n_hosts);
}

void sc_job_name(unsigned job, char *out, size_t len)
{
	snprintf(out, len, "train-%02u", job);
}

static json_t *job_json(unsigned job)
{
	char name[32];
	sc_job_name(job, name, sizeof(name));
	return json_string(name);
}

int sc_jobs_write(const struct sc_sim *s, const char *dir, char *err, size_t errlen)
{
	const struct sc_topo *t = s->t;
	json_t *items = json_array();
	for (uint32_t i = 0; i < t->n_hosts; i++) {
		const struct sc_node *n = &t->nodes[t->first_host + i];
		char ip[20], pod[SC_NAME_MAX + 8];
		sc_ip_text(n->id, ip, sizeof(ip));
		snprintf(pod, sizeof(pod), "%s-worker", n->name);
		json_t *labels = json_object();
		json_object_set_new(labels, "job-name", job_json(sc_job_of(s, t->first_host + i)));
		json_array_append_new(
		    items, json_pack("{s:s,s:s,s:{s:s,s:s,s:o},s:{s:s,s:b},s:{s:s,s:s,s:s,s:[{s:s}]}}", "apiVersion",
		                     "v1", "kind", "Pod", "metadata", "name", pod, "namespace", "training", "labels",
		                     labels, "spec", "nodeName", n->name, "hostNetwork", 1, "status", "phase",
		                     "Running", "hostIP", ip, "podIP", ip, "podIPs", "ip", ip));
	}
	json_t *root = json_pack("{s:s,s:o,s:s,s:{s:s}}", "apiVersion", "v1", "items", items, "kind", "List",
	                         "metadata", "resourceVersion", "");
	char path[4096];
	snprintf(path, sizeof(path), "%s/pods.json", dir);
	int rc = json_dump_file(root, path, JSON_INDENT(1));
	json_decref(root);
	if (rc) {
		snprintf(err, errlen, "%s: cannot write", path);
		return -1;
	}
	return 0;
}

/* Whether flow f's path (any it took) crosses egress port p while [from, to) lasts. */
static int crosses(const struct sc_sim *s, const struct sc_flow *f, uint32_t p, uint64_t from, uint64_t to)
{
	uint64_t end = f->end_ns < s->cfg->duration_ns ? f->end_ns : s->cfg->duration_ns;
	if (f->start_ns >= to || end <= from)
		return 0;
	for (unsigned k = 0; k < f->n_hist; k++)
		for (unsigned h = 0; h < f->hist_len[k]; h++)
			if (f->hist[k][h] == p)
				return 1;
	return 0;
}

json_t *sc_event_jobs(const struct sc_sim *s, unsigned i)
{
	const struct sc_event *e = &s->cfg->events[i];
	if (!s->cfg->jobs || !(e->kind == SC_EV_INCAST || e->kind == SC_EV_PFC_STORM))
		return NULL;
	/* the jobs sending into the event's queue (the receiver's or the stalled host's leaf port, lossless
	 * class) while the event lasts, and the job of that host */
	unsigned char in[SC_MAX_JOBS] = {0};
	for (uint32_t fi = 0; fi < s->n_flows; fi++) {
		const struct sc_flow *f = &s->flows[fi];
		if (f->qid == SC_Q_ROCE && crosses(s, f, e->port, e->start_ns, e->end_ns))
			in[sc_job_of(s, f->src)] = 1;
	}
	json_t *senders = json_array(), *host = json_array();
	for (unsigned j = 0; j < s->cfg->jobs; j++)
		if (in[j])
			json_array_append_new(senders, job_json(j));
	json_array_append_new(host, job_json(sc_job_of(s, e->node)));
	/* Incast: the senders fan in (culprits) onto the receiver (the victim).  PFC storm: the stalled host
	 * (the culprit) pauses the flows sending to it (the victims). */
	if (e->kind == SC_EV_INCAST)
		return json_pack("{s:o,s:o}", "culprits", senders, "victims", host);
	return json_pack("{s:o,s:o}", "culprits", host, "victims", senders);
}
