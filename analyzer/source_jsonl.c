/* Record source: JSON-lines records (--json FILE|-, docs/records.md), files in the order given, parsed
 * into batches of up to HW_STREAM_MAX_BATCH records; a file's last batch is not merged with the next's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/stream.h"
#include "record_source.h"
#include "records_jsonl.h"

struct source_jsonl {
	struct record_source base;
	const char *const *paths;
	int n, i; /* files, and the one being read */
	const volatile sig_atomic_t *stop;
	FILE *f;
	unsigned long lineno;
	char *line;
	size_t cap;
	char pending[512]; /* a line that did not parse, reported after the records before it */
	struct hw_record buf[HW_STREAM_MAX_BATCH];
};

static void close_file(struct source_jsonl *j)
{
	if (j->f && j->f != stdin)
		fclose(j->f);
	j->f = NULL;
	j->i++;
}

static long jsonl_next(struct record_source *s, const struct hw_record **r, char *err, size_t errlen)
{
	struct source_jsonl *j = (struct source_jsonl *)s;
	if (j->pending[0]) {
		snprintf(err, errlen, "%s", j->pending);
		return HW_SRC_ERROR;
	}
	for (;;) {
		if (!j->f) {
			if (j->i == j->n)
				return HW_SRC_END;
			const char *path = j->paths[j->i];
			if (!(j->f = strcmp(path, "-") ? fopen(path, "r") : stdin)) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				return HW_SRC_ERROR;
			}
			j->lineno = 0;
		}
		size_t n = 0;
		while (n < HW_STREAM_MAX_BATCH && !*j->stop && getline(&j->line, &j->cap, j->f) > 0) {
			char why[256];
			j->lineno++;
			if (j->line[0] == '\n')
				continue;
			if (hw_record_from_json_line(j->line, &j->buf[n], why, sizeof(why))) {
				snprintf(j->pending, sizeof(j->pending), "%s:%lu: %s", j->paths[j->i], j->lineno, why);
				close_file(j);
				if (n)
					break;
				snprintf(err, errlen, "%s", j->pending);
				return HW_SRC_ERROR;
			}
			n++;
		}
		if (*j->stop) { /* a signal: the records already read are analysed, the rest is left */
			*r = j->buf;
			return n ? (long)n : HW_SRC_END;
		}
		if (n == HW_STREAM_MAX_BATCH || j->pending[0]) {
			*r = j->buf;
			return (long)n;
		}
		close_file(j); /* the end of this file */
		if (n) {
			*r = j->buf;
			return (long)n;
		}
	}
}

static void jsonl_close(struct record_source *s)
{
	struct source_jsonl *j = (struct source_jsonl *)s;
	if (j->f && j->f != stdin)
		fclose(j->f);
	free(j->line);
	free(j);
}

static const struct record_source_ops jsonl_ops = {.next = jsonl_next, .close = jsonl_close};

struct record_source *hw_source_jsonl(const char *const *paths, int n, const volatile sig_atomic_t *stop, char *err,
                                      size_t errlen)
{
	struct source_jsonl *j = calloc(1, sizeof(*j));
	if (!j) {
		snprintf(err, errlen, "--json %s: out of memory", paths[0]);
		return NULL;
	}
	j->base.ops = &jsonl_ops;
	j->base.name = "--json";
	j->paths = paths;
	j->n = n;
	j->stop = stop;
	return &j->base;
}
