/* Whose traffic (run --pods / --ident-map): an output that remembers each flow's sender and receiver and names,
 * through the identity map (lib/ident), the sender and receiver jobs of every event before other outputs see it. */
#ifndef HOPWATCH_AN_ATTR_H
#define HOPWATCH_AN_ATTR_H

#include "an_outputs.h"
#include "hopwatch/ident.h"
#include "hopwatch/record.h"

/* Takes id (destroyed with the output, or now when this fails); prog names the program in log lines. */
struct an_output *an_out_attr(struct hw_ident *id, const char *prog, char *err, size_t errlen);
/* The records about to be ingested (before hw_an_ingest, so an event raised on them finds its flows); reloads
 * the identity sources whose files changed (at most every 0.25 s; the outputs' ticks do too) and logs a source that
 * failed. NULL o: none. */
void an_attr_learn(struct an_output *o, const struct hw_record *r, size_t n);
struct an_attr_stats {
	struct hw_ident_stats id;
	uint64_t flows, senders_unknown, receivers_unknown; /* flows learned; those whose end has no job */
};
/* Its counters (the ingest thread; /metrics copies them under its lock). */
void an_attr_stats(const struct an_output *o, struct an_attr_stats *s);
/* With the analyzer: a latency matrix per job (the sender's; the first HW_AN_LAT_GROUPS jobs to report), in the
 * summary as "job_latency".  NULL o: nothing. */
void an_attr_bind(struct an_output *o, struct hw_analyzer *a);
/* The jobs with a latency matrix so far: names[g] is group g's (hw_an_latency_group), valid while the output
 * lives; returns how many (at most max).  The ingest thread (the groups grow there).  NULL o: 0. */
unsigned an_attr_jobs(const struct an_output *o, const char **names, unsigned max);
/* Fill e's sender_jobs, receiver_jobs, unattributed_flows (attributed = 1); NULL o: nothing. */
void an_attr_event(struct an_output *o, struct hw_an_event *e);

#endif
