/* The names file read for the collector's /metrics labels: a sorted table of (node id, port) -> name,
 * re-read when the file's identity, size or modification time changes, swapped under a mutex. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "node_names.h"

struct entry {
	uint32_t node;
	uint32_t is_port; /* 0: the node's name; 1: port's */
	uint32_t port;
	char *name;
};

struct table {
	struct entry *v;
	size_t n;
};

struct hw_node_names {
	pthread_mutex_t mu;
	char *path;
	struct stat seen; /* the file as last read (or last failed to read: said once) */
	struct table t;
};

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->is_port != y->is_port)
		return x->is_port < y->is_port ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* A decimal uint32 field ending at a tab; *p moved past the tab.  -1 when not one. */
static int field_u32(char **p, uint32_t *v)
{
	char *end;
	errno = 0;
	if (**p < '0' || **p > '9')
		return -1;
	unsigned long long x = strtoull(*p, &end, 10);
	if (errno || x > UINT32_MAX || *end != '\t')
		return -1;
	*v = (uint32_t)x;
	*p = end + 1;
	return 0;
}

static int table_read(const char *path, struct table *t, struct stat *st, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	memset(t, 0, sizeof(*t));
	if (!f) {
		snprintf(err, errlen, "--names %s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	fstat(fileno(f), st);
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	unsigned lineno = 0;
	ssize_t len;
	int rc = 0;
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		struct entry e = {0};
		char *p = line;
		if (!strncmp(p, "node\t", 5)) {
			p += 5;
			rc = field_u32(&p, &e.node);
		} else if (!strncmp(p, "port\t", 5)) {
			p += 5;
			e.is_port = 1;
			rc = field_u32(&p, &e.node);
			rc = rc ? rc : field_u32(&p, &e.port);
		} else {
			rc = -1;
		}
		if (rc || !*p || strchr(p, '\t')) {
			snprintf(err, errlen,
			         "--names %s line %u: expected \"node<TAB>ID<TAB>NAME\" or "
			         "\"port<TAB>ID<TAB>PORT<TAB>IFNAME\" (hopwatch-analyzer topology --names-out)",
			         path, lineno);
			rc = -1;
			break;
		}
		if (t->n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			struct entry *v = realloc(t->v, alloc * sizeof(*v));
			if (!v) {
				snprintf(err, errlen, "--names %s: out of memory", path);
				rc = -1;
				break;
			}
			t->v = v;
		}
		if (!(e.name = strdup(p))) {
			snprintf(err, errlen, "--names %s: out of memory", path);
			rc = -1;
			break;
		}
		t->v[t->n++] = e;
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "--names %s: read error: %s", path, strerror(errno));
		rc = -1;
	}
	free(line);
	fclose(f);
	if (rc) {
		table_free(t);
		return -1;
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry);
	return 0;
}

struct hw_node_names *hw_node_names_open(const char *path, char *err, size_t errlen)
{
	struct hw_node_names *n = calloc(1, sizeof(*n));
	if (!n || !(n->path = strdup(path))) {
		free(n);
		snprintf(err, errlen, "--names %s: out of memory", path);
		return NULL;
	}
	if (table_read(path, &n->t, &n->seen, err, errlen)) {
		free(n->path);
		free(n);
		return NULL;
	}
	pthread_mutex_init(&n->mu, NULL);
	return n;
}

void hw_node_names_close(struct hw_node_names *n)
{
	if (!n)
		return;
	table_free(&n->t);
	pthread_mutex_destroy(&n->mu);
	free(n->path);
	free(n);
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

void hw_node_names_lock(struct hw_node_names *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->mu);
	struct stat st;
	if (stat(n->path, &st) == 0 && same_file(&st, &n->seen))
		return;
	memset(&st, 0, sizeof(st)); /* gone or unreadable: told apart from the file read before */
	struct table t;
	char err[512];
	if (table_read(n->path, &t, &st, err, sizeof(err)) == 0) {
		table_free(&n->t);
		n->t = t;
		n->seen = st;
	} else if (!same_file(&st, &n->seen)) { /* said once per change of the file */
		fprintf(stderr, "hopwatch-collector: %s; keeping the names read before\n", err);
		n->seen = st;
	}
}

void hw_node_names_unlock(struct hw_node_names *n)
{
	if (n)
		pthread_mutex_unlock(&n->mu);
}

static const char *find(const struct hw_node_names *n, uint32_t node, uint32_t is_port, uint32_t port)
{
	if (!n || !n->t.n)
		return NULL;
	const struct entry key = {.node = node, .is_port = is_port, .port = port};
	const struct entry *e = bsearch(&key, n->t.v, n->t.n, sizeof(key), cmp_entry);
	return e ? e->name : NULL;
}

const char *hw_node_names_node(const struct hw_node_names *n, uint32_t node_id)
{
	return find(n, node_id, 0, 0);
}

const char *hw_node_names_port(const struct hw_node_names *n, uint32_t node_id, uint32_t port)
{
	return find(n, node_id, 1, port);
}
