/* Facts the collector and the analyzer both derive from telemetry reports, with one algorithm each:
 * report loss per sender (sequence numbers with a reorder window) and a flow's path signature and change. */
#ifndef HOPWATCH_FACTS_H
#define HOPWATCH_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "hopwatch/record.h"

/* Everything here is static inline and allocation free: the collector calls it once per report on its
 * hot path (docs/performance.md), the analyzer once per assembled report.  The state lives in the
 * caller's tables; there is no global state. */

/* ---- Report loss ----
 *
 * Per sender (report_node, hw_id) the highest sequence number seen and a bitmap of the HW_SEQ_WINDOW
 * numbers below it.  A number ahead of the highest (less than half the space ahead, modulo 2^bits) moves
 * the highest on and counts the skipped numbers as lost.  A number behind it within the window is a
 * duplicate when its bit is set, else a late (reordered) arrival that recovers one of the numbers counted
 * lost.  A number further behind (including a sender that restarted its numbering lower) is too late to
 * tell: it stays lost, and nothing else changes until the sender passes its old highest again. */
#define HW_SEQ_WINDOW 64

struct hw_seq_fact {
	uint32_t highest; /* highest sequence number seen (modulo 2^bits) */
	uint8_t started;  /* a first number was seen */
	uint64_t window;  /* bit i: highest - i was seen, i < HW_SEQ_WINDOW */
};

enum hw_seq_kind {
	HW_SEQ_FIRST,     /* the sender's first number */
	HW_SEQ_NEXT,      /* ahead of the highest; lost says how many were skipped */
	HW_SEQ_LATE,      /* behind, within the window, not seen before: recovers one lost number */
	HW_SEQ_TOO_LATE,  /* behind, beyond the window: counted lost already and stays lost */
	HW_SEQ_DUPLICATE, /* seen before (within the window) */
};

struct hw_seq_step {
	uint32_t lost;     /* numbers newly counted lost (HW_SEQ_NEXT) */
	uint8_t recovered; /* 1 for HW_SEQ_LATE: one number counted lost has arrived after all */
	enum hw_seq_kind kind;
};

/* The sequence width of a report format: 22 bits for TR v2.0, 32 for TR v0.5/v1.0, 0 (no report sequence
 * number) for bare INT and unknown formats. */
static inline unsigned hw_seq_bits(unsigned format)
{
	return format == HW_FORMAT_TR20 ? 22 : format == HW_FORMAT_TR05 || format == HW_FORMAT_TR10 ? 32 : 0;
}

/* The modulus mask of a sequence width (bits 1..32). */
static inline uint32_t hw_seq_mask(unsigned bits)
{
	return bits >= 32 ? UINT32_MAX : (1u << bits) - 1;
}

/* Account one sequence number seq of a sender whose numbers wrap at mask + 1 (hw_seq_mask). */
static inline struct hw_seq_step hw_seq_update(struct hw_seq_fact *s, uint32_t seq, uint32_t mask)
{
	seq &= mask;
	if (!s->started) {
		s->started = 1;
		s->highest = seq;
		s->window = 1;
		return (struct hw_seq_step){0, 0, HW_SEQ_FIRST};
	}
	const uint32_t ahead = (seq - s->highest) & mask;
	if (ahead != 0 && ahead < mask / 2 + 1) { /* forward: the numbers in between are missing (for now) */
		s->window = ahead >= HW_SEQ_WINDOW ? 1 : (s->window << ahead) | 1;
		s->highest = seq;
		return (struct hw_seq_step){ahead - 1, 0, HW_SEQ_NEXT};
	}
	const uint32_t back = (s->highest - seq) & mask; /* 0: the highest itself */
	if (back >= HW_SEQ_WINDOW)
		return (struct hw_seq_step){0, 0, HW_SEQ_TOO_LATE};
	if (s->window & (1ull << back))
		return (struct hw_seq_step){0, 0, HW_SEQ_DUPLICATE};
	s->window |= 1ull << back;
	return (struct hw_seq_step){0, 1, HW_SEQ_LATE};
}

/* ---- Path change ----
 *
 * A flow's path is the sequence of its hops' (node, ingress port, egress port) as a report lists them.
 * Its signature folds one hop at a time from HW_PATH_SIG_SEED: an FNV-1a step over the hop's 64-bit word
 * (node << 32 ^ ingress << 16 ^ egress; level-1 ports are 16 bits on the wire) followed by an xor-shift.
 * This is the collector's signature.  The analyzer used to run plain FNV-1a over (node << 32 | egress
 * port): a multiplication carries bits only upwards, so there the node ids never reached the low 32
 * bits of the hash, and ingress ports were not in it at all.  The xor-shift brings the high half down
 * at every hop, and with the ingress ports a change of the link into the first switch is seen too.
 * hw_path_sig_done turns the (unlikely) signature 0 into 1, so callers may use 0 for "no path". */
#define HW_PATH_SIG_SEED 0x84222325cbf29ce4ull

static inline uint64_t hw_path_sig_step(uint64_t h, uint32_t node, uint32_t ingress_port, uint32_t egress_port)
{
	const uint64_t v = (uint64_t)node << 32 ^ (uint64_t)ingress_port << 16 ^ egress_port;
	h = (h ^ v) * 0x100000001b3ull;
	return h ^ h >> 29;
}

static inline uint64_t hw_path_sig_done(uint64_t h)
{
	return h ? h : 1;
}

/* Whether a report tells its flow's whole path: it has a flow, at least two hops, and it is the sink's
 * report (taken alone; hw_path_report_use adds what the flow's known path tells).  Reports a switch before
 * the sink makes (intermediate, I; drop, D; congested queue, Q, unless it
 * is also a tracked flow report, F) carry only the path up to that switch.  The rule has one more part,
 * which callers check after this one with their own view of the hops: every hop carries its ports
 * (hw_path_hops_have_ports for the records of a report); a hop without them is a hole. */
static inline bool hw_path_report_whole(unsigned flags, unsigned n_hops, bool has_flow)
{
	return has_flow && n_hops >= 2 && !(flags & (HW_RF_INTERMEDIATE | HW_RF_DROPPED)) &&
	       (flags & (HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW)) != HW_RF_CONGESTED_QUEUE;
}

/* How a report's path is compared with its flow's current whole path of n_known hops (0: none yet).
 *   HW_PATH_WHOLE:  the flow's whole path (hw_path_report_whole): it sets the flow's path, and a different
 *                   one is a change;
 *   HW_PATH_PREFIX: the path so far (I, D, Q without F; or Q+F shorter than the flow's path, below): it is
 *                   compared only with the same prefix of the flow's path and never sets or changes it;
 *   HW_PATH_NONE:   no flow, or fewer than two hops.
 * A transit switch's queue report may come as Q+F without I: BMv2 running p4/hopwatch_v1model.p4 before
 * the I flag was set did so, and other targets may too.  Such a report that is shorter than the flow's
 * whole path cannot be told from a sink report of a shorter new path, so it is taken as the path so far:
 * a flow that really moved to a shorter path shows it in its sink's next report without Q. */
enum hw_path_use { HW_PATH_NONE, HW_PATH_PREFIX, HW_PATH_WHOLE };

static inline enum hw_path_use hw_path_report_use(unsigned flags, unsigned n_hops, bool has_flow, unsigned n_known)
{
	if (!has_flow || n_hops < 2)
		return HW_PATH_NONE;
	if (!hw_path_report_whole(flags, n_hops, has_flow))
		return HW_PATH_PREFIX;
	if ((flags & HW_RF_CONGESTED_QUEUE) && n_hops < n_known)
		return HW_PATH_PREFIX;
	return HW_PATH_WHOLE;
}

/* Whether each of a report's n records (its hops) carries its ports. */
static inline bool hw_path_hops_have_ports(const struct hw_record *hops, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!(hops[i].valid & HW_V_PORTS))
			return false;
	return true;
}

/* Whether a known flow's path changed: a whole-path report (hw_path_report_whole) whose signature differs
 * from the one the flow had.  A flow seen for the first time has no change. */
static inline bool hw_path_changed(uint64_t old_sig, uint64_t new_sig)
{
	return old_sig != new_sig;
}

#endif
