/* The diagnose checklist shared by `hopwatch-collector diagnose` and `hopwatch-analyzer diagnose`: one
 * line per check (PASS / SKIP / FAIL NAME: reason, and "  fix: ..." under a FAIL), and the checks both run. */
#ifndef HOPWATCH_DIAG_H
#define HOPWATCH_DIAG_H

#include <stdarg.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hw_diag_status { HW_DIAG_PASS, HW_DIAG_SKIP, HW_DIAG_FAIL };

/* A checklist being printed: FAILs counted so far, and which checks to run. */
struct hw_diag_list {
	unsigned fails;
	const char *only; /* comma-separated check names to run, NULL = all */
};

/* Is check name in l->only (or is l->only NULL)? */
bool hw_diag_wanted_in(const struct hw_diag_list *l, const char *name);
/* Print one line to stdout (and "  fix: FIX" for a FAIL, counted in l->fails); nothing for a check
 * not wanted. */
void hw_diag_print(struct hw_diag_list *l, enum hw_diag_status st, const char *name, const char *fix, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
void hw_diag_vprint(struct hw_diag_list *l, enum hw_diag_status st, const char *name, const char *fix, const char *fmt,
                    va_list ap);

/* HTTP peers, with libcurl (check names clickhouse, alertmanager, metrics).  ClickHouse: /ping answers
 * and table has every column the collector's sink writes.  Alertmanager: GET /-/ready answers 200.
 * metrics: url answers 200 with the series named metric (whose: "collector" or "analyzer", for the
 * messages). */
void hw_diag_clickhouse(struct hw_diag_list *l, const char *url, const char *table);
void hw_diag_alertmanager(struct hw_diag_list *l, const char *url);
void hw_diag_metrics(struct hw_diag_list *l, const char *url, const char *metric, const char *whose);

/* The source options of hw_diag_topology into args (room for 2 * (n_lldp + n_json) + 3): every --lldp,
 * every --lldpd-json, then --map, NULL-terminated.  The count, or -1 when map comes without a source. */
int hw_diag_topo_args(char **args, const char *const *lldp, int n_lldp, const char *const *json, int n_json,
                      const char *map);

/* Runs `ANALYZER topology SRC_ARGS... [--jsonl RECORDS]` (src_args NULL-terminated LLDP source options).
 * Without records (NULL): PASS when the topology loads.  With a JSON-lines records file: FAIL when an INT
 * (node, port) of the records is not on the topology.  The line is check name. */
void hw_diag_topology(struct hw_diag_list *l, const char *name, const char *analyzer, char *const *src_args,
                      const char *records);

#ifdef __cplusplus
}
#endif
#endif
