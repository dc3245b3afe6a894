/* Log lines as a service writes them: the journald priority prefix, and the lines that say a peer
 * (Alertmanager, a webhook, the stream, ClickHouse) went down and came back, rate-limited. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "log.h"
#include "service.h"

/* journald sets JOURNAL_STREAM=DEV:INODE of the stream it gave a service as stdout/stderr: a prefix is
 * wanted only while stderr is still that stream (not redirected to a file by a wrapper). */
const char *hw_service_log_prefix(int prio)
{
	static const char *const prefix[8] = {"<0>", "<1>", "<2>", "<3>", "<4>", "<5>", "<6>", "<7>"};
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	if (prio < 0 || prio > 7 || !js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(2, &st))
		return "";
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino ? prefix[prio] : "";
}

void hw_peer_log_init(struct hw_peer_log *p, const char *peer, const char *unit)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->peer, sizeof(p->peer), "%s", peer);
	p->unit = unit;
}

void hw_peer_failed(struct hw_peer_log *p, uint64_t n, const char *why)
{
	double now = hw_mono_s();
	p->failed += n;
	if (p->down)
		return;
	__atomic_store_n(&p->down, 1, __ATOMIC_RELAXED); /* hw_peer_down_name reads it from other threads */
	p->down_since = now;
	p->down_logged = now >= p->quiet_until;
	if (!p->down_logged)
		return; /* it came back less than HW_PEER_LOG_QUIET_S ago: this bout is told when it is back */
	p->quiet_until = now + HW_PEER_LOG_QUIET_S;
	fprintf(stderr, "%s%s: %s: down (%s); %ss failing from now on are counted until it is back\n",
	        hw_service_log_prefix(4), program_invocation_short_name, p->peer, why && *why ? why : "no reason given",
	        p->unit);
}

const char *hw_peer_down_name(const struct hw_peer_log *p)
{
	return __atomic_load_n(&p->down, __ATOMIC_RELAXED) ? p->peer : NULL;
}

void hw_peer_ok(struct hw_peer_log *p)
{
	if (!p->down)
		return;
	__atomic_store_n(&p->down, 0, __ATOMIC_RELAXED);
	if (!p->down_logged && hw_mono_s() < p->quiet_until)
		return; /* a bout not told: its failures go into the next line */
	fprintf(stderr, "%s%s: %s: back after %.1f s, %llu %s%s failed meanwhile\n", hw_service_log_prefix(5),
	        program_invocation_short_name, p->peer, hw_mono_s() - p->down_since, (unsigned long long)p->failed,
	        p->unit, p->failed == 1 ? "" : "s");
	p->failed = 0;
}

void hw_peer_counts(struct hw_peer_log *p, uint64_t ok, uint64_t failed, const char *why)
{
	uint64_t more_ok = ok - p->ok_seen, more_failed = failed - p->failed_seen;
	p->ok_seen = ok;
	p->failed_seen = failed;
	if (more_failed && !more_ok)
		hw_peer_failed(p, more_failed, why);
	else if (more_ok) {
		p->failed += more_failed;
		hw_peer_ok(p);
	}
}
