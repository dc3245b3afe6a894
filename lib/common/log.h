/* Log lines as a service writes them: a peer's down and back lines, rate-limited, with the journald
 * priority prefix (hw_service_log_prefix in service.h). */
#ifndef HOPWATCH_LOG_H
#define HOPWATCH_LOG_H

#include <stdint.h>

/* A peer that was down and came back within this many seconds of its last down line is not told again
 * until it is back: a flapping peer writes one pair of lines per 10 s, with every failure counted. */
#define HW_PEER_LOG_QUIET_S 10.0

/* One peer's state for its log lines.  Lines go to stderr, named after the program:
 *   <4>PROG: PEER: down (WHY); UNITs failing from now on are counted until it is back
 *   <5>PROG: PEER: back after 8.1 s, 12 UNITs failed meanwhile */
struct hw_peer_log {
	char peer[200];   /* "alertmanager http://host:9093", "stream unix:/run/x.sock" (no credentials) */
	const char *unit; /* what fails: "post", "connect", "insert" (a string constant) */
	int down, down_logged;
	double down_since, quiet_until; /* monotonic seconds */
	uint64_t failed;                /* failures of this bout */
	uint64_t ok_seen, failed_seen;  /* hw_peer_counts: the counters last seen */
};

void hw_peer_log_init(struct hw_peer_log *p, const char *peer, const char *unit);
/* n more attempts failed (why: what the last one said). */
void hw_peer_failed(struct hw_peer_log *p, uint64_t n, const char *why);
/* An attempt succeeded. */
void hw_peer_ok(struct hw_peer_log *p);
/* The peer's name while it is down, else NULL: for status lines, from any thread. */
const char *hw_peer_down_name(const struct hw_peer_log *p);
/* The same from cumulative counters of successes and failures (another thread's statistics): down when
 * only failures grew since the last call, back when a success did. */
void hw_peer_counts(struct hw_peer_log *p, uint64_t ok, uint64_t failed, const char *why);

#endif
