/* The identity map (include/hopwatch/ident.h): kubectl pod lists and plain CSV/JSON maps parsed into sorted
 * (IP, QP range) entries, looked up by binary search, reloaded when a source's files change. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hopwatch/ident.h"
#include "ident_k8s.h"

#define MAX_SOURCES 16
#define MAX_FILE_BYTES (256u << 20) /* a pod list larger than this is refused, not read */

struct source {
	enum hw_ident_kind kind;
	char *path;
	struct hw_ident_entry *v; /* the last good mapping, sorted by (ip, qp_lo, qp_hi) */
	size_t n;
	uint64_t print, tried; /* fingerprint of the files of the last good load, and of the last attempt */
	int stale;
	struct ident_k8s *k8s;          /* HW_IDENT_K8S: the lister and watcher */
	char last_err[1024];            /* HW_IDENT_K8S: the last failure, reported once */
	uint64_t k8s_lists, k8s_events; /* HW_IDENT_K8S: pod lists answered, watch events applied */
};

struct hw_ident {
	char *job_labels;
	struct source src[MAX_SOURCES];
	unsigned n_src;
	uint64_t loads, load_errors;
};

/* ---- names ---- */

static void put_name(char *dst, const char *s)
{
	size_t i = 0;
	for (; s && s[i] && i < HW_IDENT_NAME_MAX - 1; i++) {
		unsigned char c = (unsigned char)s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		         c == '_' || c == '-' || c == '/' || c == ':' || c == '@';
		dst[i] = ok ? (char)c : '_';
	}
	dst[i] = 0;
}

static int parse_ip(const char *s, uint8_t ip[16])
{
	struct in_addr v4;
	memset(ip, 0, 16);
	if (s && inet_pton(AF_INET, s, &v4) == 1) {
		ip[10] = ip[11] = 0xff;
		memcpy(ip + 12, &v4, 4);
		return 0;
	}
	return s && inet_pton(AF_INET6, s, ip) == 1 ? 0 : -1;
}

/* "" / "*" = every QP, "N" or "N-M" (decimal or 0x hex). */
static int parse_qp(const char *s, uint32_t *lo, uint32_t *hi)
{
	*lo = HW_IDENT_QP_ANY_LO, *hi = HW_IDENT_QP_ANY_HI;
	while (*s == ' ')
		s++;
	if (!*s || !strcmp(s, "*"))
		return 0;
	char *end;
	errno = 0;
	unsigned long long a = strtoull(s, &end, 0), b = a;
	if (end == s || errno || a > UINT32_MAX)
		return -1;
	if (*end == '-') {
		const char *t = end + 1;
		b = strtoull(t, &end, 0);
		if (end == t || errno || b > UINT32_MAX || b < a)
			return -1;
	}
	while (*end == ' ')
		end++;
	if (*end)
		return -1;
	*lo = (uint32_t)a, *hi = (uint32_t)b;
	return 0;
}

static struct hw_ident_entry *push(struct hw_ident_entry **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct hw_ident_entry *nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return NULL;
		*v = nv, *cap = c;
	}
	struct hw_ident_entry *e = &(*v)[(*n)++];
	memset(e, 0, sizeof(*e));
	e->qp_hi = HW_IDENT_QP_ANY_HI;
	return e;
}

/* ---- kubectl get pods -A -o json ---- */

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static const char *job_of(json_t *labels, const char *job_labels)
{
	const char *p = job_labels;
	while (p && *p) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		char key[256];
		if (len && len < sizeof(key)) {
			memcpy(key, p, len);
			key[len] = 0;
			const char *v = jstr(labels, key);
			if (v && *v)
				return v;
		}
		p = c ? c + 1 : NULL;
	}
	return "";
}

/* Rank of an entry among those of the same (ip, QP range): a running pod's before another pod's before a
 * node's own address (hostIP); the first of a rank wins. */
enum { RANK_RUNNING = 0, RANK_POD = 1, RANK_HOST = 2 };

static int add_pod(json_t *pod, const char *name, size_t i, const char *job_labels, struct hw_ident_entry **v,
                   size_t *n, size_t *cap, char *err, size_t errlen)
{
	json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec"),
	       *status = json_object_get(pod, "status");
	if (!json_is_object(meta) || !json_is_object(status)) {
		snprintf(err, errlen, "%s: items[%zu]: not a pod (no metadata or status object)", name, i);
		return -1;
	}
	const char *phase = jstr(status, "phase");
	if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
		return 0; /* finished: its address may already be another pod's */
	int rank = phase && !strcmp(phase, "Running") ? RANK_RUNNING : RANK_POD;
	const char *node = spec ? jstr(spec, "nodeName") : NULL;
	const char *job = job_of(json_object_get(meta, "labels"), job_labels);
	const char *ips[16];
	unsigned n_ips = 0;
	json_t *list = json_object_get(status, "podIPs"), *x;
	size_t k;
	json_array_foreach(list, k, x) if (n_ips < 16 && jstr(x, "ip")) ips[n_ips++] = jstr(x, "ip");
	if (!n_ips && jstr(status, "podIP"))
		ips[n_ips++] = jstr(status, "podIP");
	const char *host_ip = jstr(status, "hostIP");
	for (unsigned j = 0; j <= n_ips; j++) {
		const char *ip = j < n_ips ? ips[j] : host_ip;
		if (!ip || !*ip || (j == n_ips && n_ips && !strcmp(ip, ips[0])))
			continue; /* the host's address, unless it is the pod's own (host networking) */
		struct hw_ident_entry *e = push(v, n, cap);
		if (!e) {
			snprintf(err, errlen, "%s: out of memory", name);
			return -1;
		}
		if (parse_ip(ip, e->ip)) {
			snprintf(err, errlen, "%s: items[%zu]: \"%.64s\" is not an IP address", name, i, ip);
			return -1;
		}
		put_name(e->host, node);
		put_name(e->ns, j < n_ips ? jstr(meta, "namespace") : "");
		put_name(e->pod, j < n_ips ? jstr(meta, "name") : "");
		put_name(e->job, j < n_ips ? job : "");
		/* the rank rides in the last byte of the (unused, zeroed) namespace until sorted; see finish() */
		e->ns[HW_IDENT_NAME_MAX - 1] = (char)(j < n_ips ? rank : RANK_HOST);
	}
	return 0;
}

int hw_ident_parse_pods(const char *text, const char *name, const char *job_labels, struct hw_ident_entry **v,
                        size_t *n, size_t *cap, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	if (!root) {
		snprintf(err, errlen, "%s:%d: %s", name, je.line, je.text);
		return -1;
	}
	int rc = 0;
	json_t *items = json_object_get(root, "items");
	const char *kind = jstr(root, "kind");
	if (json_is_array(items)) {
		size_t i;
		json_t *pod;
		json_array_foreach(items, i, pod)
		{
			if ((rc = add_pod(pod, name, i, job_labels ? job_labels : HW_IDENT_JOB_LABELS, v, n, cap, err,
			                  errlen)))
				break;
		}
	} else if (kind && !strcmp(kind, "Pod")) {
		rc = add_pod(root, name, 0, job_labels ? job_labels : HW_IDENT_JOB_LABELS, v, n, cap, err, errlen);
	} else {
		snprintf(err, errlen, "%s: neither a list of pods (\"items\" array) nor a Pod", name);
		rc = -1;
	}
	json_decref(root);
	return rc;
}

/* ---- CSV and JSON maps ---- */

static int map_entry(const char *name, size_t at, const char *ip, const char *qp, const char *host, const char *pod,
                     const char *job, const char *ns, struct hw_ident_entry **v, size_t *n, size_t *cap, char *err,
                     size_t errlen)
{
	struct hw_ident_entry *e = push(v, n, cap);
	if (!e) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	if (parse_ip(ip, e->ip)) {
		snprintf(err, errlen, "%s:%zu: \"%.64s\" is not an IP address", name, at, ip ? ip : "");
		return -1;
	}
	if (parse_qp(qp ? qp : "", &e->qp_lo, &e->qp_hi)) {
		snprintf(err, errlen, "%s:%zu: QP \"%.64s\" is not N or LO-HI (LO <= HI < 2^32)", name, at, qp);
		return -1;
	}
	put_name(e->host, host);
	put_name(e->pod, pod);
	put_name(e->job, job);
	put_name(e->ns, ns);
	return 0;
}

static int parse_map_json(const char *text, const char *name, struct hw_ident_entry **v, size_t *n, size_t *cap,
                          char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	if (!root) {
		snprintf(err, errlen, "%s:%d: %s", name, je.line, je.text);
		return -1;
	}
	json_t *list = json_is_array(root) ? root : json_object_get(root, "entries"), *o;
	size_t i;
	int rc = 0;
	if (!json_is_array(list)) {
		snprintf(err, errlen, "%s: neither an array of entries nor {\"entries\": [...]}", name);
		rc = -1;
	}
	json_array_foreach(list, i, o)
	{
		if (rc)
			break;
		char qp[48] = "";
		json_t *q = json_object_get(o, "qp");
		if (json_is_integer(q))
			snprintf(qp, sizeof(qp), "%lld", (long long)json_integer_value(q));
		else if (json_is_string(q))
			snprintf(qp, sizeof(qp), "%s", json_string_value(q));
		rc = map_entry(name, i, jstr(o, "ip"), qp, jstr(o, "host"), jstr(o, "pod"), jstr(o, "job"),
		               jstr(o, "namespace"), v, n, cap, err, errlen);
	}
	json_decref(root);
	return rc;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
		s[--l] = 0;
	return s;
}

int hw_ident_parse_map(const char *text, const char *name, struct hw_ident_entry **v, size_t *n, size_t *cap, char *err,
                       size_t errlen)
{
	const char *p = text;
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	if (*p == '[' || *p == '{')
		return parse_map_json(text, name, v, n, cap, err, errlen);
	size_t line = 0;
	while (*p || line == 0) {
		line++;
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[1024], *f[6] = {0};
		if (len >= sizeof(buf)) {
			snprintf(err, errlen, "%s:%zu: line longer than %zu bytes", name, line, sizeof(buf) - 1);
			return -1;
		}
		memcpy(buf, p, len);
		buf[len] = 0;
		p = nl ? nl + 1 : p + len;
		char *s = trim(buf);
		if (!*s || *s == '#')
			goto next;
		unsigned k = 0;
		for (char *c = s; k < 6;) {
			char *comma = strchr(c, ',');
			if (comma)
				*comma = 0;
			f[k++] = trim(c);
			if (!comma)
				break;
			c = comma + 1;
		}
		if (!strcmp(f[0], "ip"))
			goto next; /* the header line */
		if (map_entry(name, line, f[0], f[1], f[2], f[3], f[4], f[5], v, n, cap, err, errlen))
			return -1;
	next:
		if (!nl)
			break;
	}
	return 0;
}

/* ---- sources ---- */

static int cmp_entry(const void *x, const void *y)
{
	const struct hw_ident_entry *a = x, *b = y;
	int c = memcmp(a->ip, b->ip, 16);
	if (c)
		return c;
	if (a->qp_lo != b->qp_lo)
		return a->qp_lo < b->qp_lo ? -1 : 1;
	if (a->qp_hi != b->qp_hi)
		return a->qp_hi < b->qp_hi ? -1 : 1;
	return (int)(unsigned char)a->ns[HW_IDENT_NAME_MAX - 1] - (int)(unsigned char)b->ns[HW_IDENT_NAME_MAX - 1];
}

/* Sort, keep the first (best ranked) entry of each (ip, QP range), clear the rank bytes. */
static size_t finish(struct hw_ident_entry *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_entry); /* qsort is not stable: the rank is part of the key */
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (out && !memcmp(v[out - 1].ip, v[i].ip, 16) && v[out - 1].qp_lo == v[i].qp_lo &&
		    v[out - 1].qp_hi == v[i].qp_hi)
			continue;
		v[out++] = v[i];
	}
	for (size_t i = 0; i < out; i++)
		v[i].ns[HW_IDENT_NAME_MAX - 1] = 0;
	return out;
}

static char *read_all(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (len + 1 >= cap) {
			char *nb = cap < MAX_FILE_BYTES ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				snprintf(err, errlen, "%s: larger than %u MiB or out of memory", path,
				         MAX_FILE_BYTES >> 20);
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb, cap *= 2;
		}
		size_t got = fread(buf + len, 1, cap - 1 - len, f);
		len += got;
		if (!got) {
			if (ferror(f)) {
				snprintf(err, errlen, "%s: read error", path);
				free(buf);
				buf = NULL;
			}
			break;
		}
	}
	if (buf)
		buf[len] = 0;
	else if (!err[0])
		snprintf(err, errlen, "%s: out of memory", path);
	fclose(f);
	return buf;
}

static int json_name(const struct dirent *d)
{
	size_t l = strlen(d->d_name);
	return d->d_name[0] != '.' && l > 5 && !strcmp(d->d_name + l - 5, ".json");
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t stat_print(uint64_t h, const struct stat *st)
{
	h = mix(h, (uint64_t)st->st_ino);
	h = mix(h, (uint64_t)st->st_size);
	h = mix(h, (uint64_t)st->st_mtim.tv_sec);
	return mix(h, (uint64_t)st->st_mtim.tv_nsec);
}

/* A fingerprint of the source's files (0 when the path cannot be read: a change to retry). */
static uint64_t fingerprint(const struct source *s)
{
	struct stat st;
	if (stat(s->path, &st))
		return 0;
	uint64_t h = stat_print(1, &st);
	if (!S_ISDIR(st.st_mode))
		return h;
	struct dirent **names;
	int n = scandir(s->path, &names, json_name, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", s->path, names[i]->d_name);
		for (const char *c = names[i]->d_name; *c; c++)
			h = mix(h, (unsigned char)*c);
		if (!stat(p, &st))
			h = stat_print(h, &st);
		free(names[i]);
	}
	free(names);
	return h;
}

static int parse_file(const struct hw_ident *id, const struct source *s, const char *path, struct hw_ident_entry **v,
                      size_t *n, size_t *cap, char *err, size_t errlen)
{
	err[0] = 0;
	char *text = read_all(path, err, errlen);
	if (!text)
		return -1;
	int rc = s->kind == HW_IDENT_PODS ? hw_ident_parse_pods(text, path, id->job_labels, v, n, cap, err, errlen)
	                                  : hw_ident_parse_map(text, path, v, n, cap, err, errlen);
	free(text);
	return rc;
}

/* The end of a load of s into v (n entries): rc 0, they replace its last good mapping; else it keeps that one and
 * is stale.  Returns rc. */
static int settle(struct hw_ident *id, struct source *s, int rc, struct hw_ident_entry *v, size_t n)
{
	if (rc) {
		free(v);
		id->load_errors++;
		s->stale = 1;
		return rc;
	}
	free(s->v);
	s->v = v;
	s->n = finish(v, n);
	s->stale = 0;
	s->last_err[0] = 0;
	return 0;
}

/* Load s into a new mapping; on success it replaces the last good one. */
static int load(struct hw_ident *id, struct source *s, uint64_t print, char *err, size_t errlen)
{
	struct hw_ident_entry *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct stat st;
	s->tried = print;
	id->loads++;
	if (stat(s->path, &st)) {
		snprintf(err, errlen, "%s: %s", s->path, strerror(errno));
		rc = -1;
	} else if (S_ISDIR(st.st_mode)) {
		struct dirent **names;
		int k = scandir(s->path, &names, json_name, alphasort);
		if (k < 0) {
			snprintf(err, errlen, "%s: %s", s->path, strerror(errno));
			rc = -1;
		}
		for (int i = 0; i < k; i++) {
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", s->path, names[i]->d_name);
			if (!rc)
				rc = parse_file(id, s, p, &v, &n, &cap, err, errlen);
			free(names[i]);
		}
		if (k >= 0)
			free(names);
	} else {
		rc = parse_file(id, s, s->path, &v, &n, &cap, err, errlen);
	}
	if (settle(id, s, rc ? -1 : 0, v, n))
		return -1;
	s->print = print;
	return 0;
}

struct hw_ident *hw_ident_create(const char *job_labels)
{
	struct hw_ident *id = calloc(1, sizeof(*id));
	if (id && !(id->job_labels = strdup(job_labels ? job_labels : HW_IDENT_JOB_LABELS))) {
		free(id);
		return NULL;
	}
	return id;
}

void hw_ident_destroy(struct hw_ident *id)
{
	if (!id)
		return;
	for (unsigned i = 0; i < id->n_src; i++) {
		ident_k8s_stop(id->src[i].k8s);
		free(id->src[i].v);
		free(id->src[i].path);
	}
	free(id->job_labels);
	free(id);
}

/* The next source's slot for path (counted in n_src once its first load succeeded), NULL with err. */
static struct source *new_source(struct hw_ident *id, enum hw_ident_kind kind, const char *path, char *err,
                                 size_t errlen)
{
	if (id->n_src == MAX_SOURCES) {
		snprintf(err, errlen, "%s: more than %d identity sources", path, MAX_SOURCES);
		return NULL;
	}
	struct source *s = &id->src[id->n_src];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	if (!(s->path = strdup(path))) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	return s;
}

int hw_ident_add(struct hw_ident *id, enum hw_ident_kind kind, const char *path, char *err, size_t errlen)
{
	struct source *s = new_source(id, kind, path, err, errlen);
	if (!s)
		return -1;
	if (load(id, s, fingerprint(s), err, errlen)) {
		free(s->path);
		s->path = NULL;
		return -1;
	}
	id->n_src++;
	return 0;
}

/* What a Kubernetes API source's thread did since the last take: 1 a newer mapping taken, -1 a failure (err: the
 * newest), 0 nothing new.  The source is stale when its newest outcome is a failure. */
static int load_k8s(struct hw_ident *id, struct source *s, int wait, char *err, size_t errlen)
{
	struct ident_k8s_news nw;
	if (!ident_k8s_take(s->k8s, &nw, wait))
		return 0;
	s->k8s_lists = nw.lists, s->k8s_events = nw.events;
	id->loads += nw.fails;
	id->load_errors += nw.fails;
	int failed = nw.fails > 0, bad = 0;
	if (failed && nw.fails > 1 && strcmp(nw.first_err, nw.err))
		snprintf(err, errlen, "%s; then %s", nw.first_err, nw.err);
	else if (failed)
		snprintf(err, errlen, "%s", nw.err);
	if (nw.text) {
		struct hw_ident_entry *v = NULL;
		size_t n = 0, cap = 0;
		id->loads++;
		if (hw_ident_parse_pods(nw.text, s->path, id->job_labels, &v, &n, &cap, err, errlen)) {
			free(v);
			id->load_errors++;
			failed = bad = 1;
		} else {
			free(s->v);
			s->v = v;
			s->n = finish(v, n);
		}
		free(nw.text);
	}
	s->stale = bad || nw.failing;
	if (!s->stale)
		s->last_err[0] = 0;
	return failed ? -1 : 1;
}

int hw_ident_add_k8s(struct hw_ident *id, const char *url, const struct hw_ident_k8s_opts *o, char *err, size_t errlen)
{
	struct source *s = new_source(id, HW_IDENT_K8S, url, err, errlen);
	if (!s)
		return -1;
	if (!(s->k8s = ident_k8s_start(url, o, err, errlen)) || load_k8s(id, s, 1, err, errlen) < 0) {
		ident_k8s_stop(s->k8s);
		free(s->v);
		free(s->path);
		memset(s, 0, sizeof(*s));
		return -1;
	}
	id->n_src++;
	return 0;
}

int hw_ident_reload(struct hw_ident *id, char *err, size_t errlen)
{
	int failed = 0;
	for (unsigned i = 0; i < id->n_src; i++) {
		struct source *s = &id->src[i];
		if (s->k8s) {
			char e[sizeof(s->last_err)];
			if (load_k8s(id, s, 0, e, sizeof(e)) < 0 && strcmp(e, s->last_err)) {
				snprintf(s->last_err, sizeof(s->last_err), "%s", e);
				snprintf(err, errlen, "%s", e);
				failed++;
			}
			continue;
		}
		uint64_t p = fingerprint(s);
		if (p && p == s->print && !s->stale)
			continue;
		if (p == s->tried && s->stale)
			continue; /* failed on these very files: wait for them to change */
		if (load(id, s, p, err, errlen))
			failed++;
	}
	return failed;
}

const struct hw_ident_entry *hw_ident_lookup(const struct hw_ident *id, const uint8_t ip[16], uint32_t qp)
{
	for (unsigned i = 0; i < id->n_src; i++) {
		const struct source *s = &id->src[i];
		size_t lo = 0, hi = s->n;
		while (lo < hi) { /* the first entry of ip */
			size_t mid = lo + (hi - lo) / 2;
			if (memcmp(s->v[mid].ip, ip, 16) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		const struct hw_ident_entry *any = NULL,
		                            *first = lo < s->n && !memcmp(s->v[lo].ip, ip, 16) ? &s->v[lo] : NULL;
		for (size_t k = lo; k < s->n && !memcmp(s->v[k].ip, ip, 16); k++) {
			const struct hw_ident_entry *e = &s->v[k];
			int every = e->qp_lo == HW_IDENT_QP_ANY_LO && e->qp_hi == HW_IDENT_QP_ANY_HI;
			if (every && !any)
				any = e;
			else if (!every && qp != UINT32_MAX && qp >= e->qp_lo && qp <= e->qp_hi)
				return e;
		}
		if (any)
			return any;
		if (first && qp == UINT32_MAX)
			return first;
	}
	return NULL;
}

void hw_ident_stats(const struct hw_ident *id, struct hw_ident_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->sources = id->n_src;
	for (unsigned i = 0; i < id->n_src; i++) {
		st->entries += (uint32_t)id->src[i].n;
		st->stale += (uint32_t)id->src[i].stale;
		st->k8s_lists += id->src[i].k8s_lists;
		st->k8s_events += id->src[i].k8s_events;
	}
	st->loads = id->loads;
	st->load_errors = id->load_errors;
}
