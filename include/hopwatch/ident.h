/* Whose traffic is it: an address (IP, optionally a RoCE destination QP range) -> host, pod, job and namespace,
 * from `kubectl get pods -A -o json` output and plain CSV/JSON maps, reloaded when their files change. */
#ifndef HOPWATCH_IDENT_H
#define HOPWATCH_IDENT_H

#include <stddef.h>
#include <stdint.h>

/* Every name is at most this long with its NUL (longer ones are cut) and holds only [A-Za-z0-9._/:@-]: any
 * other byte is written '_', so a name is safe as a label value, in a list joined by commas, and in JSON. */
#define HW_IDENT_NAME_MAX 64
#define HW_IDENT_QP_ANY_LO 0u
#define HW_IDENT_QP_ANY_HI UINT32_MAX
/* The labels tried for the job's name, first present wins, when none is configured. */
#define HW_IDENT_JOB_LABELS "job-name,training.kubeflow.org/job-name,volcano.sh/job-name"

struct hw_ident_entry {
	uint8_t ip[16];        /* IPv4 as ::ffff:a.b.c.d, as in struct hw_record */
	uint32_t qp_lo, qp_hi; /* the RoCE destination QPs it owns; 0 .. UINT32_MAX = every one */
	char host[HW_IDENT_NAME_MAX], pod[HW_IDENT_NAME_MAX], job[HW_IDENT_NAME_MAX], ns[HW_IDENT_NAME_MAX];
};

enum hw_ident_kind {
	HW_IDENT_PODS, /* kubectl get pods -A -o json: a file, or a directory whose *.json files are read together */
	HW_IDENT_MAP,  /* CSV "ip,qp,host,pod,job,namespace" or JSON [{"ip":..,"qp":"lo-hi",...}] */
	HW_IDENT_K8S,  /* the Kubernetes API's pod list (hw_ident_add_k8s) */
};

/* A Kubernetes API source: GET URL (e.g. https://kubernetes.default.svc/api/v1/pods) on a thread of its own, the
 * answer read as the pods of `kubectl get pods -A -o json`, then its watch followed (URL?watch=1&resourceVersion=
 * RV: pods added, modified, deleted); a 410 Gone lists again, any other failure lists again every_s later. */
struct hw_ident_k8s_opts {
	const char *token_file; /* its first line is sent as the bearer token, read at every list; NULL: none */
	const char *ca_file;    /* CA certificates of the API server; NULL: the system's */
	double every_s;         /* the wait before listing again after a failure; 0: 10 */
};

struct hw_ident_stats {
	uint32_t sources, entries; /* entries of every source's last good mapping */
	uint32_t stale;            /* sources whose last load failed (their last good mapping is kept) */
	uint64_t loads, load_errors;
	uint64_t k8s_lists, k8s_events; /* Kubernetes API sources: pod lists answered, watch events applied */
};

struct hw_ident;

/* job_labels: comma-separated pod labels naming the job, first present wins; NULL = HW_IDENT_JOB_LABELS. */
struct hw_ident *hw_ident_create(const char *job_labels);
void hw_ident_destroy(struct hw_ident *id);
/* Add a source and load it now; -1 with a message naming the path when it cannot be read or parsed. */
int hw_ident_add(struct hw_ident *id, enum hw_ident_kind kind, const char *path, char *err, size_t errlen);
/* Add a Kubernetes API source and wait for its first list; -1 with a message naming the URL when that fails. */
int hw_ident_add_k8s(struct hw_ident *id, const char *url, const struct hw_ident_k8s_opts *o, char *err, size_t errlen);
/* Load again each source whose file (or directory listing, or a file in it) changed since its last load.  A
 * source that fails keeps its last good mapping and is stale until a load succeeds.  Returns the number of
 * sources that failed now, each described in err (the last one when several); 0 when none changed or all loaded.
 * A Kubernetes API source takes its newest pod list (a list, or a list followed by watch events), when a newer
 * one came; its failures (list or watch) each count in load_errors, and are reported once per new message (the
 * same error again is not reported again until a good list came between). */
int hw_ident_reload(struct hw_ident *id, char *err, size_t errlen);
/* The entry of ip (16 bytes) and RoCE destination QP (UINT32_MAX = none known): the first source that knows
 * the IP answers; within it an entry whose QP range holds qp, else the IP's entry for every QP, else (qp
 * unknown) the IP's first entry.  NULL when no source knows the IP. */
const struct hw_ident_entry *hw_ident_lookup(const struct hw_ident *id, const uint8_t ip[16], uint32_t qp);
void hw_ident_stats(const struct hw_ident *id, struct hw_ident_stats *s);

/* Parsers, for tests and the loaders: text of one source file into entries (appended to *v, *n, *cap: grown
 * with realloc); -1 with a message naming what is wrong (name: the file, for messages). */
int hw_ident_parse_pods(const char *text, const char *name, const char *job_labels, struct hw_ident_entry **v,
                        size_t *n, size_t *cap, char *err, size_t errlen);
int hw_ident_parse_map(const char *text, const char *name, struct hw_ident_entry **v, size_t *n, size_t *cap, char *err,
                       size_t errlen);

#endif
