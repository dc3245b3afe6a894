/* The collector's JSON-lines output with exact accounting (issue 22 item 9: on a full disk json_written said
 * 25,000 while 4,582 lines reached it): lines are buffered here and written with write(2), and a short write
 * counts the lines that reached the file whole; a torn last line is cut off again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errf.h"
#include "hopwatch/record_json.h"
#include "json_sink.h"

#define JSON_SINK_BUF (1u << 20)

struct hw_json_sink {
	int fd; /* -1 after a failed reopen */
	int is_file;
	char path[4096];
	size_t len;     /* bytes buffered */
	uint64_t lines; /* records buffered */
	uint64_t written, lost;
	char buf[JSON_SINK_BUF + HW_RECORD_JSON_MAX];
};

static int open_file(struct hw_json_sink *s, int flags)
{
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	struct stat st;
	s->is_file = s->fd >= 0 && !fstat(s->fd, &st) && S_ISREG(st.st_mode);
	return s->fd < 0 ? -1 : 0;
}

struct hw_json_sink *hw_json_sink_open(const char *path, char *err, size_t errlen)
{
	struct hw_json_sink *s = calloc(1, sizeof(*s));
	if (!s) {
		hw_errf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (!strcmp(path, "-")) {
		s->fd = STDOUT_FILENO;
	} else if (open_file(s, O_TRUNC)) {
		hw_errf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
		free(s);
		return NULL;
	}
	return s;
}

/* The buffered lines are done with: those before byte done reached the file, the rest are lost. */
static void settle(struct hw_json_sink *s, size_t done)
{
	uint64_t whole = 0;
	size_t end = 0; /* just past the last whole line written */
	for (size_t i = 0; i < done; i++)
		if (s->buf[i] == '\n') {
			whole++;
			end = i + 1;
		}
	if (end < done && s->is_file) { /* a torn line: cut it off, so the file holds whole lines only */
		off_t at = lseek(s->fd, 0, SEEK_END);
		if (at >= (off_t)(done - end) && ftruncate(s->fd, at - (off_t)(done - end)) == 0)
			lseek(s->fd, 0, SEEK_END);
	}
	s->written += whole;
	s->lost += s->lines - whole;
	s->len = 0;
	s->lines = 0;
}

int hw_json_sink_flush(struct hw_json_sink *s, char *err, size_t errlen)
{
	if (!s->lines)
		return 0;
	if (s->fd < 0) {
		settle(s, 0);
		hw_errf(err, errlen, "%s: not open (reopen failed): records lost", s->path);
		return -1;
	}
	size_t done = 0;
	while (done < s->len) {
		ssize_t k = write(s->fd, s->buf + done, s->len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : ENOSPC;
			uint64_t before = s->lost;
			settle(s, done);
			hw_errf(err, errlen, "%s: write failed: %s (%llu records lost)", s->path, strerror(e),
			        (unsigned long long)(s->lost - before));
			return -1;
		}
		done += (size_t)k;
	}
	settle(s, done);
	return 0;
}

int hw_json_sink_put(struct hw_json_sink *s, const struct hw_record *r, size_t n, char *err, size_t errlen)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->len >= JSON_SINK_BUF && hw_json_sink_flush(s, err, errlen))
			rc = -1;
		s->len += hw_record_json(&r[i], s->buf + s->len);
		s->lines++;
	}
	return rc;
}

int hw_json_sink_reopen(struct hw_json_sink *s, char *err, size_t errlen)
{
	int rc = hw_json_sink_flush(s, err, errlen);
	if (s->fd == STDOUT_FILENO)
		return rc;
	if (s->fd >= 0)
		close(s->fd);
	if (open_file(s, O_APPEND)) {
		hw_errf(err, errlen, "%s: cannot reopen: %s (records are counted lost until a reopen succeeds)",
		        s->path, strerror(errno));
		return -1;
	}
	return rc;
}

int hw_json_sink_close(struct hw_json_sink *s, char *err, size_t errlen)
{
	if (!s)
		return 0;
	int rc = hw_json_sink_flush(s, err, errlen);
	if (s->fd >= 0 && s->fd != STDOUT_FILENO && close(s->fd) && !rc) {
		hw_errf(err, errlen, "%s: close: %s", s->path, strerror(errno));
		rc = -1;
	}
	free(s);
	return rc;
}

void hw_json_sink_counts(const struct hw_json_sink *s, uint64_t *written, uint64_t *lost)
{
	*written = s->written;
	*lost = s->lost;
}
