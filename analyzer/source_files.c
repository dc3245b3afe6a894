/* Record source: binary record files (--records, docs/records.md), read in the order given, in batches
 * of HW_SRC_FILE_BATCH records; each file is opened when the previous one is done. */
#include <stdio.h>
#include <stdlib.h>

#include "hopwatch/record_file.h"
#include "record_source.h"

struct source_files {
	struct record_source base;
	const char *const *paths;
	int n, i; /* files, and the one being read */
	struct hw_record_reader *rd;
	struct hw_record buf[HW_SRC_FILE_BATCH];
};

static long files_next_into(struct record_source *s, struct hw_record *buf, size_t cap, char *err, size_t errlen)
{
	struct source_files *f = (struct source_files *)s;
	for (;;) {
		if (!f->rd) {
			if (f->i == f->n)
				return HW_SRC_END;
			if (!(f->rd = hw_record_reader_open(f->paths[f->i], err, errlen)))
				return HW_SRC_ERROR;
		}
		long n = hw_record_reader_read(f->rd, buf, cap, err, errlen);
		if (n > 0)
			return n;
		hw_record_reader_close(f->rd);
		f->rd = NULL;
		f->i++;
		if (n < 0)
			return HW_SRC_ERROR;
	}
}

static long files_next(struct record_source *s, const struct hw_record **r, char *err, size_t errlen)
{
	struct source_files *f = (struct source_files *)s;
	*r = f->buf;
	return files_next_into(s, f->buf, HW_SRC_FILE_BATCH, err, errlen);
}

static void files_close(struct record_source *s)
{
	struct source_files *f = (struct source_files *)s;
	if (f->rd)
		hw_record_reader_close(f->rd);
	free(f);
}

static const struct record_source_ops files_ops = {
    .next = files_next, .close = files_close, .next_into = files_next_into};

struct record_source *hw_source_files(const char *const *paths, int n, char *err, size_t errlen)
{
	struct source_files *f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "--records %s: out of memory", paths[0]);
		return NULL;
	}
	f->base.ops = &files_ops;
	f->base.name = "--records";
	f->paths = paths;
	f->n = n;
	return &f->base;
}
