/* `hopwatch-collector diagnose`: PASS / SKIP / FAIL lines with reasons and fixes.  Parts: options and
 * receiving (diagnose.c), judgements (diagnose_judge.c), DPDK (diagnose_dpdk.c), peers (lib/diag/diag_http.c). */
#ifndef HOPWATCH_DIAGNOSE_H
#define HOPWATCH_DIAGNOSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collector_config.h"
#include "hopwatch/diag.h"
#include "worker.h"

/* One hop-to-hop pair of switches whose timestamps are compared (clock skew). */
struct hw_diag_pair {
	uint32_t a, b; /* the earlier hop's node, the later hop's node; a == b: that node against this
	                * host's clock (epoch timestamps); n == 0: free slot */
	uint64_t n;
	double sum_ns; /* sum of (ingress_ts of b) - (egress_ts of a) */
};

#define HW_DIAG_PAIRS 4096

/* What one diagnose run collects while it receives. */
struct hw_diag_run {
	struct hw_collector_config *cfg;
	struct hw_worker *w; /* parses every frame; its ring is drained by hw_diag_drain */
	double seconds;      /* how long to receive on live inputs */
	uint64_t records;
	struct hw_record prev; /* the previous record, to pair consecutive hops of a report */
	bool have_prev;
	struct hw_diag_pair pairs[HW_DIAG_PAIRS];
	FILE *records_json;       /* records kept for the topology check, or NULL */
	struct hw_diag_list list; /* FAILs so far, --only */
};

/* Print one checklist line (and "  fix: ..." for a FAIL) to run->list (hopwatch/diag.h).  A check not
 * in run->only is not printed. */
void hw_diag_line(struct hw_diag_run *run, enum hw_diag_status st, const char *name, const char *fix, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));
bool hw_diag_wanted(const struct hw_diag_run *run, const char *name);
/* Take the records the worker handed over (call after frames, and after hw_worker_flush). */
void hw_diag_drain(struct hw_diag_run *run);

/* Judgements on what the worker saw (diagnose_judge.c).  where names the input in messages. */
void hw_diag_reports(struct hw_diag_run *run, const char *where);
void hw_diag_parse_errors(struct hw_diag_run *run, double max_ratio);
void hw_diag_report_loss(struct hw_diag_run *run, double max_ratio);
/* Consecutive hops of different switches disagree by more than max_skew_ns, or epoch-like timestamps
 * are more than max_offset_ns from this host's clock. */
void hw_diag_clock_skew(struct hw_diag_run *run, double max_skew_ns, double max_offset_ns);

/* DPDK checks (dpdk_eal, ports, link) then receive for run->seconds on every port.  true when
 * packets could be received (the later checks then judge them). */
bool hw_diag_dpdk(struct hw_diag_run *run, int eal_argc, char **eal_argv);

/* `hopwatch-collector diagnose ...` (argv[0] = "diagnose").  Exit status: 0 no FAIL, 1 a FAIL,
 * 2 bad usage. */
int hw_diagnose_main(int argc, char **argv, const char *prog_path);

#endif
