/* The detector plug-in interface: what one detector (detectors/detect_*.c) declares to the analyzer core (its
 * event kind, config keys and defaults, state sizes, hooks) and the core's accessors for its state. */
#ifndef HOPWATCH_AN_DETECTOR_H
#define HOPWATCH_AN_DETECTOR_H

#include <stddef.h>

#include "an_internal.h"

/* One key of the JSON config file, "section": {"name": value}, stored in struct hw_an_config at off. */
enum an_key_type { AN_DOUBLE, AN_U64, AN_U32, AN_U8, AN_INT };
struct an_key {
	const char *section, *name;
	enum an_key_type type;
	size_t off;
};
#define AN_KEY(section, name, type, field)                                                                             \
	{                                                                                                              \
		section, name, type, offsetof(struct hw_an_config, field)                                              \
	}

/* In a struct an_detector: its config keys (an array of struct an_key). */
#define AN_KEYS(array) .keys = (array), .n_keys = sizeof(array) / sizeof((array)[0])
/* In a struct an_detector: its per-queue state (type) keeps its episode in field. */
#define AN_EPISODE(type, field) .has_episode = 1, .episode_off = offsetof(type, field)

struct an_det;

/* A detector.  Every size and hook may be 0 / NULL.  The core allocates the state the detector declares,
 * zeroed, and hands it over: per queue (its slice of every queue, an_qstate), a flow table (flow_size
 * bytes per slot, an_flow_slots() slots, from a cache-line boundary), a sender table (sender_size bytes per
 * slot, an_sender_slots() slots) and state_size bytes for the whole analyzer; the detector keys its flow and
 * sender slots itself.  A detector that keeps a hysteresis episode per queue names it with AN_EPISODE
 * (hw_an_queue_get's active bits, an_episode).  Hooks run only while its kind is enabled, in the registry's
 * order (an_registry.c):
 *   record:     one record of queue q, after the core updated q (ring, trend samples, recent flows);
 *   report:     a finished report, for detectors that look at whole reports or senders;
 *   flow_ahead: a report's flow, ahead of the report (below);
 *   tick_queue: record time advanced to now (about every millisecond), for each queue: close windows,
 *               clear quiet episodes; tick: the same once per tick;
 *   tick_armed: when set (AN_TICK_ARMED, with its tick_pending predicate), called instead of tick_queue for
 *               every queue, once per tick: tick_queue (inlined, without one indirect call per queue), in table
 *               order, on the armed queues where tick_pending(q) says so.  Armed: q after its record hook when
 *               tick_pending(q) holds then (the hook made with AN_RECORD_ARMING), after a tick when it still
 *               holds, and any q that the detector's other hooks arm with an_tick_arm when they change q's
 *               state.  tick_pending returns 0 only when tick_queue would change nothing on q, whatever the
 *               time, until q's state in this detector changes (by a record of q, or a hook that arms it): the
 *               same events as a walk of every queue, and a queue with nothing pending costs no tick, recorded
 *               or not;
 *   queue_info: adds what it knows of a queue to hw_an_queue_get's answer;
 *   flow_path:  hw_an_flow_path's answer (a flow's current path), 0 when unknown;
 *   stats:      adds its counters to hw_an_stats's answer.
 * Sharding (hw_an_shards, an_shard.c): a detector with an episode may offer its record hook's per-queue step:
 *   record_local: the step of record on queue state qs (a copy), reading nothing but qs, a->c, q's thresholds
 *               and r (its hop_index is the record's, not a postcard's place); returns nonzero when record
 *               would raise or resolve there (it changed the episode's active flag), 0 when record would do no
 *               more than this step.  It runs on a shard's thread ahead of the core, which runs record whole
 *               where it returned nonzero (on the state before that record);
 *   quiet_ns:   its tick_queue changes nothing on a queue while the queue's episode is not active or for less
 *               than quiet_ns(c) since the queue's last record. */
struct an_detector {
	const char *name;          /* its config section ("high_queue"), for messages */
	enum hw_an_kind kind;      /* the event kind it raises; "detectors": {"<alertname>": false} turns it off */
	int congestion;            /* a congestion kind: the outputs draw a graph of its raises */
	const struct an_key *keys; /* its config keys */
	unsigned n_keys;
	void (*defaults)(struct hw_an_config *c); /* sets its keys' documented defaults */
	size_t queue_size, flow_size, sender_size, state_size;
	size_t brief_size;  /* the bytes at the start of its per-queue state that its record hook's short way touches
	                       (AN_RECORD_ARMING's brief): the look-ahead fetches their lines (0: none) */
	int per_report;     /* its report hook counts reports (sequence numbers): not given the paths that
	                       the core assembles from postcards (an_report.postcards) */
	int has_episode;    /* AN_EPISODE */
	size_t episode_off; /* ... offset of its struct an_hyst in its per-queue state */
	void (*record)(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs,
	               const struct hw_record *r);
	void (*report)(struct hw_analyzer *a, struct an_det *d, const struct an_report *rep);
	/* optional: prefetch what report will read of this flow's state; the one-thread path calls it with the flow of
	 * a report's hop-0 record AN_AHEAD_SLOT records before it ingests that record (no state may change) */
	void (*flow_ahead)(const struct hw_analyzer *a, const struct an_det *d, uint64_t flow_hash);
	void (*tick_queue)(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now);
	void (*tick)(struct hw_analyzer *a, struct an_det *d, uint64_t now);
	void (*queue_info)(const struct hw_analyzer *a, const struct an_det *d, const void *qs,
	                   struct hw_an_queue_info *out);
	unsigned (*flow_path)(const struct hw_analyzer *a, const struct an_det *d, uint64_t flow_hash,
	                      uint32_t (*hops)[2], unsigned max);
	void (*stats)(const struct hw_analyzer *a, const struct an_det *d, struct hw_an_stats *s);
	int (*record_local)(const struct hw_analyzer *a, const struct an_queue *q, void *qs, const struct hw_record *r);
	uint64_t (*quiet_ns)(const struct hw_an_config *c);
	void (*tick_armed)(struct hw_analyzer *a, struct an_det *d, uint64_t now); /* AN_TICK_ARMED */
};

/* A detector in one analyzer: the state the core allocated for it. */
struct an_det {
	const struct an_detector *def;
	size_t qoff;                   /* its slice's offset in each queue's state */
	void *flows, *senders, *state; /* flows and senders: tables of table_mem.h (page-aligned) */
	uint64_t *armed;               /* with tick_armed: a bit per queue index, the queues its next tick visits */
};

/* Detector d's next tick visits queue index qi: for its hooks other than record that change qi's state
 * (tick_armed above). */
static inline void an_tick_arm(const struct an_det *d, uint32_t qi)
{
	if (d->armed)
		d->armed[qi / 64] |= (uint64_t)1 << (qi % 64);
}

/* In a detector's file, after its record hook fn, its tick_pending predicate pend and its short way brief: defines
 * fn##_arming, the record hook to register.  brief(a, q, qs, r) takes the records that need little, most of them
 * (below every level, no episode open): it returns nonzero when it did all that the hook does with r, and that left
 * pend(q) false or as it was; 0 when fn is to go on from what it did (fn does the rest of the record).  Then fn runs
 * (inlined into fn##_rest) and q is armed for the next tick when pend(q) holds after it.  brief calls nothing, so the
 * hook returns from it without a stack frame (fn##_rest is a tail call): that frame was a fifth of a quiet record's
 * hooks (docs/performance.md, round 23).  A detector with tick_armed and a record hook must register this one (the
 * ticks visit armed queues only). */
#define AN_RECORD_ARMING(fn, pend, brief)                                                                              \
	static __attribute__((noinline)) void fn##_rest(struct hw_analyzer *a, struct an_det *d, struct an_queue *q,   \
	                                                void *qs, const struct hw_record *r)                           \
	{                                                                                                              \
		fn(a, d, q, qs, r);                                                                                    \
		if (pend(a, q, qs))                                                                                    \
			an_tick_arm(d, (uint32_t)(q - a->queues));                                                     \
	}                                                                                                              \
	static void fn##_arming(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs,                 \
	                        const struct hw_record *r)                                                             \
	{                                                                                                              \
		if (!brief(a, q, qs, r))                                                                               \
			fn##_rest(a, d, q, qs, r);                                                                     \
	}

/* In a detector's file, after its tick_queue hook fn and its tick_pending predicate pend: defines fn##_armed, its
 * tick_armed hook (both inlined into the walk of the armed queues, d->armed, in table order).  A queue armed
 * during the walk is visited in this tick when it comes later in the table, as a walk of every queue would. */
#define AN_TICK_ARMED(fn, pend)                                                                                        \
	static void fn##_armed(struct hw_analyzer *a, struct an_det *d, uint64_t now)                                  \
	{                                                                                                              \
		uint64_t *const armed = d->armed;                                                                      \
		const size_t words = (a->n_queues + 63u) / 64u, stride = a->qstride;                                   \
		unsigned char *const qs0 = a->qstate + d->qoff;                                                        \
		for (size_t w = 0; w < words; w++) {                                                                   \
			const uint64_t in = armed[w];                                                                  \
			if (!in)                                                                                       \
				continue;                                                                              \
			uint64_t keep = 0, bits = in;                                                                  \
			armed[w] = 0; /* what the hooks arm meanwhile */                                               \
			while (bits) {                                                                                 \
				const unsigned b = (unsigned)__builtin_ctzll(bits);                                    \
				const size_t qi = w * 64 + b;                                                          \
				struct an_queue *q = &a->queues[qi];                                                   \
				unsigned char *qs = qs0 + qi * stride;                                                 \
				if (pend(a, q, qs)) {                                                                  \
					fn(a, d, q, qs, now);                                                          \
					if (pend(a, q, qs))                                                            \
						keep |= (uint64_t)1 << b;                                              \
				}                                                                                      \
				bits = (in | armed[w]) & (~(uint64_t)1 << b); /* the later ones */                     \
			}                                                                                              \
			armed[w] |= keep;                                                                              \
		}                                                                                                      \
	}

/* The registry (an_registry.c): every detector, in the order they run. */
extern const struct an_detector *const an_registry[];
extern const unsigned an_registry_count;

/* Detector d's state of queue q. */
static inline void *an_qstate(const struct hw_analyzer *a, const struct an_det *d, const struct an_queue *q)
{
	return a->qstate + (size_t)(q - a->queues) * a->qstride + d->qoff;
}
static inline uint32_t an_flow_slots(const struct hw_analyzer *a)
{
	return a->fmask + 1; /* limits.max_flows rounded up to a power of 2 (at least 16) */
}
static inline uint32_t an_sender_slots(const struct hw_analyzer *a)
{
	return a->smask + 1;
}
/* The detector of kind k in a (NULL when none). */
static inline struct an_det *an_det_of(const struct hw_analyzer *a, enum hw_an_kind k)
{
	return a->by_kind[k];
}
/* The episode of kind k on queue q (NULL when that detector keeps none). */
static inline const struct an_hyst *an_episode(const struct hw_analyzer *a, enum hw_an_kind k, const struct an_queue *q)
{
	const struct an_det *d = a->by_kind[k];
	if (!d || !d->def->has_episode)
		return NULL;
	return (const struct an_hyst *)((const unsigned char *)an_qstate(a, d, q) + d->def->episode_off);
}

/* Between detectors: queue q is a congestion tree's victim: recent reports showed it upstream of a queue in a
 * HighQueue episode, or its link leads to a switch with a queue of its class in one, at least at the victim level,
 * or paused itself from the switch one link further (detect_congestion_tree.c; 0 without that detector).  It
 * reads state only: the answer does not depend on which detector asked before. */
int an_tree_victim(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now);
/* The root (queue index) of the congestion tree queue index qi is a victim of, qi itself when none. */
uint32_t an_tree_root(const struct hw_analyzer *a, uint32_t qi, uint64_t now);
/* The Incast at queue q ended as q froze (a host that stopped draining, detect_incast.c): a congestion tree rooted at q
 * that went into that Incast (an update of it) is raised as its own alert now, while q is in a HighQueue episode
 * (detect_congestion_tree.c; nothing without that detector). */
void an_tree_unfold(struct hw_analyzer *a, const struct an_queue *q, uint64_t now);
/* Whether queue q is frozen, a host that stopped draining (detect_incast.c: flat at or above its HighQueue clear level
 * for high_queue.hold_ns since it last drained below it); 0 with Incast off. */
int an_queue_frozen(const struct hw_analyzer *a, const struct an_queue *q);
/* Whether queue q showed at most high_queue.hold_ns before t that it drains while congested (detect_incast.c: a
 * tracked flow's packet left it at or above its clear level, or its occupancy fell from there); 0 with Incast off. */
int an_queue_drains(const struct hw_analyzer *a, const struct an_queue *q, uint64_t t);

#endif
