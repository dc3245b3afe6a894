/* `hopwatch-analyzer run`'s exit summary: the readable lines, the JSON object of --summary-json, and the
 * tally of raised events by name the lines report. */
#include <stdlib.h>
#include <string.h>

#include "run_summary.h"

#define TALLY_MAX 64 /* distinct alertnames: the detector kinds and the topology's events */

struct tally_entry {
	char name[32];
	uint64_t raised;
};

struct tally {
	struct an_output base;
	unsigned n;
	struct tally_entry v[TALLY_MAX];
	uint64_t other; /* raises of names beyond TALLY_MAX */
};

static void tally_on_event(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
                           const char *svg)
{
	(void)a, (void)svg;
	struct tally *t = (struct tally *)o;
	if (e->resolved || e->update) /* an update is the alert raised already */
		return;
	unsigned i;
	for (i = 0; i < t->n && strcmp(t->v[i].name, e->alertname); i++)
		;
	if (i == t->n) {
		if (t->n == TALLY_MAX) {
			t->other++;
			return;
		}
		snprintf(t->v[t->n++].name, sizeof(t->v[0].name), "%s", e->alertname);
	}
	t->v[i].raised++;
}

static void tally_close(struct an_output *o)
{
	free(o);
}

static const struct an_output_ops tally_ops = {.on_event = tally_on_event, .close = tally_close};

struct an_output *run_out_tally(void)
{
	struct tally *t = calloc(1, sizeof(*t));
	if (t)
		t->base.ops = &tally_ops;
	return t ? &t->base : NULL;
}

void run_summary_json(struct hw_analyzer *a, struct an_outputs *out, FILE *f)
{
	struct hw_an_stats s;
	hw_an_stats(a, &s);
	fprintf(f,
	        "{\"records\":%llu,\"placed\":%llu,\"unplaced\":%llu,\"queues\":%llu,\"queues_dropped\":%llu,"
	        "\"reports\":%llu,\"reports_lost\":%llu,\"flows\":%llu,\"events_raised\":%llu,\"events_resolved\":%llu,"
	        "\"records_set_aside\":%llu,\"clock_jumps\":%llu,\"senders_untracked\":%llu,"
	        "\"records_sharded\":%llu,\"shard_handbacks\":%llu",
	        (unsigned long long)s.records, (unsigned long long)s.placed, (unsigned long long)s.unplaced,
	        (unsigned long long)s.queues, (unsigned long long)s.queues_dropped, (unsigned long long)s.reports,
	        (unsigned long long)s.reports_lost, (unsigned long long)s.flows, (unsigned long long)s.events_raised,
	        (unsigned long long)s.events_resolved, (unsigned long long)s.records_set_aside,
	        (unsigned long long)s.clock_jumps, (unsigned long long)s.senders_untracked,
	        (unsigned long long)s.records_sharded, (unsigned long long)s.shard_handbacks);
	const struct hw_place_tally *t = hw_an_unplaced(a);
	if (t) {
		fprintf(f, ",\"unplaced_list\":[");
		for (uint32_t i = 0; i < t->n_entries && i < 32; i++)
			fprintf(f, "%s{\"node_id\":%u,\"port\":%u,\"why\":\"%s\",\"records\":%llu}", i ? "," : "",
			        t->entries[i].node_id, t->entries[i].port, hw_place_name(t->entries[i].why),
			        (unsigned long long)t->entries[i].count);
		fprintf(f, "]");
	}
	an_outputs_summary(out, f, 0);
	char *lat = hw_an_lat_json(hw_an_latency(a), 16);
	if (lat)
		fprintf(f, ",\"latency_matrix\":%s", lat);
	free(lat);
	an_outputs_summary(out, f, 1);
	fprintf(f, "}\n");
}

/* Most raised first, then by name. */
static int by_raised(const void *x, const void *y)
{
	const struct tally_entry *a = x, *b = y;
	return a->raised != b->raised ? (a->raised < b->raised ? 1 : -1) : strcmp(a->name, b->name);
}

static void sink_line(FILE *f, const char *name, struct hw_alert_sink *sink)
{
	if (!sink)
		return;
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(sink, &st);
	fprintf(f,
	        "hopwatch-analyzer run: %s: %llu alerts handed over, %llu sent in %llu posts (%llu failed), "
	        "%llu dropped, %llu undelivered\n",
	        name, (unsigned long long)st.pushed, (unsigned long long)st.sent_alerts,
	        (unsigned long long)st.posts_ok, (unsigned long long)st.posts_failed, (unsigned long long)st.dropped,
	        (unsigned long long)st.undelivered);
}

void run_summary_lines(struct hw_analyzer *a, struct an_output *tally, struct hw_alert_sink *am,
                       struct hw_alert_sink *webhook, FILE *f)
{
	struct hw_an_stats s;
	hw_an_stats(a, &s);
	fprintf(f, "hopwatch-analyzer run: %llu records", (unsigned long long)s.records);
	const struct hw_place_tally *pt = hw_an_unplaced(a);
	if (pt)
		fprintf(f, " (%llu placed, %llu unplaced)", (unsigned long long)s.placed,
		        (unsigned long long)s.unplaced);
	fprintf(f, ", %llu reports (%llu lost), %llu queues, %llu flows\n", (unsigned long long)s.reports,
	        (unsigned long long)s.reports_lost, (unsigned long long)s.queues, (unsigned long long)s.flows);
	fprintf(f, "hopwatch-analyzer run: %llu events raised, %llu resolved", (unsigned long long)s.events_raised,
	        (unsigned long long)s.events_resolved);
	struct tally *t = (struct tally *)tally;
	if (t && t->n) {
		qsort(t->v, t->n, sizeof(t->v[0]), by_raised);
		for (unsigned i = 0; i < t->n; i++)
			fprintf(f, "%s%s %llu", i ? ", " : ": ", t->v[i].name, (unsigned long long)t->v[i].raised);
		if (t->other)
			fprintf(f, ", others %llu", (unsigned long long)t->other);
	}
	fprintf(f, "\n");
	if (s.queues_dropped || s.records_set_aside || s.clock_jumps)
		fprintf(f,
		        "hopwatch-analyzer run: %llu records of new queues found no slot (limits.max_queues), %llu "
		        "records set aside for their time, %llu clock jumps\n",
		        (unsigned long long)s.queues_dropped, (unsigned long long)s.records_set_aside,
		        (unsigned long long)s.clock_jumps);
	if (s.senders_untracked)
		fprintf(
		    f,
		    "hopwatch-analyzer run: %llu reports from senders the full sender table could not track (report "
		    "loss not followed for them)\n",
		    (unsigned long long)s.senders_untracked);
	if (pt && pt->n_entries) {
		fprintf(f, "hopwatch-analyzer run: unplaced INT ports");
		for (uint32_t i = 0; i < pt->n_entries && i < 3; i++)
			fprintf(f, "%s node_id %u port %u (%s, %llu records)", i ? "," : ":", pt->entries[i].node_id,
			        pt->entries[i].port, hw_place_name(pt->entries[i].why),
			        (unsigned long long)pt->entries[i].count);
		if (pt->n_entries > 3)
			fprintf(f, " and %u more", pt->n_entries - 3);
		fprintf(f, "\n");
	}
	sink_line(f, "alertmanager", am);
	sink_line(f, "webhook", webhook);
}
