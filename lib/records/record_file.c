/* Binary record files (record_file.h): a buffered writer of compact (version 2) or fixed-size (version 1)
 * files that rotates by size and time and renames finished files into place atomically, and a reader of
 * both versions that refuses files it does not understand. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hopwatch/record_file.h"
#include "read_full.h"
#include "record_compact.h"
#include "sinks_internal.h"

#define WRITER_BUF (1u << 20)       /* bytes buffered before a write(2) */
#define READER_CHUNK 256u           /* records per read(2) */
#define COMPACT_BUF (1u << 20)      /* bytes of a compact file buffered: refills move at most COMPACT_REFILL of them */
#define COMPACT_REFILL (128u << 10) /* read more when fewer bytes than this are left: more than any group */
#define NAME_LEN 256

struct hw_record_writer {
	int dirfd;
	char dir[4096];
	char prefix[128];
	uint64_t rotate_bytes, rotate_ns;
	unsigned version;      /* HW_RECORD_FILE_VERSION (compact) or HW_RECORD_FILE_VERSION_FIXED */
	struct hw_record prev; /* compact: the last record of the current file, what the next group is coded against */

	int fd; /* current temporary file, -1 when none is open */
	char final_name[NAME_LEN], tmp_name[NAME_LEN + 8];
	uint64_t file_bytes;    /* header + records of the current file, written or buffered */
	uint64_t file_recs;     /* records in the current file */
	uint64_t file_start_ns; /* now_ns of the write that opened it */
	uint64_t last_stamp;    /* wall-clock ns in the newest file name: names stay unique and ordered */

	uint64_t count, lost, files;
	size_t buflen;
	uint8_t buf[WRITER_BUF];
};

static void put_header(uint8_t h[HW_RECORD_FILE_HEADER], uint64_t created_ns, unsigned version)
{
	memset(h, 0, HW_RECORD_FILE_HEADER);
	memcpy(h, HW_RECORD_FILE_MAGIC, 8);
	hw_put_le16(h + 8, (uint16_t)version);
	hw_put_le16(h + 10, HW_RECORD_SIZE);
	hw_put_le32(h + 12, HW_RECORD_FILE_HEADER);
	hw_put_le64(h + 16, created_ns);
	hw_put_le32(h + 24, HW_RECORD_LAYOUT_VERSION);
}

/* PREFIX-YYYYmmddTHHMMSS.nnnnnnnnnZ.hwr: UTC, so names sort in time order. */
static void file_names(struct hw_record_writer *w, uint64_t stamp)
{
	time_t sec = (time_t)(stamp / 1000000000u);
	struct tm tm;
	char when[40];
	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	snprintf(w->final_name, sizeof(w->final_name), "%s-%s.%09uZ.hwr", w->prefix, when,
	         (unsigned)(stamp % 1000000000u));
	snprintf(w->tmp_name, sizeof(w->tmp_name), ".%s.tmp", w->final_name);
}

/* Drop the current file after an error: its records are counted lost and its temporary file removed, so
 * that what the directory holds is what the counts say was written (and a full disk gets its space back). */
static void abandon_file(struct hw_record_writer *w)
{
	close(w->fd);
	unlinkat(w->dirfd, w->tmp_name, 0);
	w->fd = -1;
	w->buflen = 0;
	w->count -= w->file_recs;
	w->lost += w->file_recs;
	w->file_recs = 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int flush_buf(struct hw_record_writer *w, char *err, size_t errlen)
{
	if (write_all(w->fd, w->buf, w->buflen)) {
		hw_errf(err, errlen, "write %s/%s: %s", w->dir, w->tmp_name, strerror(errno));
		abandon_file(w);
		return -1;
	}
	w->buflen = 0;
	return 0;
}

static int start_file(struct hw_record_writer *w, uint64_t now_ns, char *err, size_t errlen)
{
	uint64_t stamp = hw_real_ns();
	for (int tries = 0; tries < 1000; tries++) {
		if (stamp <= w->last_stamp)
			stamp = w->last_stamp + 1;
		w->last_stamp = stamp;
		file_names(w, stamp);
		if (faccessat(w->dirfd, w->final_name, F_OK, 0) == 0)
			continue; /* never replace a finished file */
		w->fd = openat(w->dirfd, w->tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (w->fd >= 0)
			break;
		if (errno != EEXIST) {
			hw_errf(err, errlen, "create %s/%s: %s", w->dir, w->tmp_name, strerror(errno));
			return -1;
		}
	}
	if (w->fd < 0) {
		hw_errf(err, errlen, "create %s/%s: no free file name", w->dir, w->tmp_name);
		return -1;
	}
	put_header(w->buf, stamp, w->version);
	memset(&w->prev, 0, sizeof(w->prev));
	w->buflen = HW_RECORD_FILE_HEADER;
	w->file_bytes = HW_RECORD_FILE_HEADER;
	w->file_recs = 0;
	w->file_start_ns = now_ns;
	return 0;
}

/* Flush, fsync, rename into place and fsync the directory so the new name survives a crash. */
static int finish_file(struct hw_record_writer *w, char *err, size_t errlen)
{
	if (w->fd < 0)
		return 0;
	if (flush_buf(w, err, errlen))
		return -1;
	if (fsync(w->fd)) {
		hw_errf(err, errlen, "fsync %s/%s: %s", w->dir, w->tmp_name, strerror(errno));
		abandon_file(w);
		return -1;
	}
	if (renameat(w->dirfd, w->tmp_name, w->dirfd, w->final_name)) {
		hw_errf(err, errlen, "rename %s/%s to %s: %s", w->dir, w->tmp_name, w->final_name, strerror(errno));
		abandon_file(w);
		return -1;
	}
	close(w->fd);
	w->fd = -1;
	w->files++;
	if (fsync(w->dirfd)) {
		hw_errf(err, errlen, "fsync directory %s: %s", w->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The directory and its missing parents (mode 0750), as `mkdir -p`.  0, or -1 with errno. */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);
	if (n == 0 || n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0750) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0750) != 0 && errno != EEXIST ? -1 : 0;
}

struct hw_record_writer *hw_record_writer_open(const struct hw_record_writer_opts *o, char *err, size_t errlen)
{
	if (!o || !o->dir || !o->prefix || !*o->prefix || strchr(o->prefix, '/') ||
	    strlen(o->prefix) >= sizeof(((struct hw_record_writer *)0)->prefix) ||
	    strlen(o->dir) >= sizeof(((struct hw_record_writer *)0)->dir)) {
		hw_errf(err, errlen,
		        "record writer: need a directory and a prefix of 1 to 127 bytes without '/' (dir \"%s\", "
		        "prefix \"%s\")",
		        o && o->dir ? o->dir : "", o && o->prefix ? o->prefix : "");
		return NULL;
	}
	if (make_dirs(o->dir) != 0) {
		hw_errf(err, errlen, "record directory %s: cannot create it: %s", o->dir, strerror(errno));
		return NULL;
	}
	int dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		hw_errf(err, errlen, "record directory %s: %s", o->dir, strerror(errno));
		return NULL;
	}
	if (faccessat(dirfd, ".", W_OK, AT_EACCESS)) {
		hw_errf(err, errlen, "record directory %s: %s", o->dir, strerror(errno));
		close(dirfd);
		return NULL;
	}
	struct hw_record_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		hw_errf(err, errlen, "record writer for %s: out of memory", o->dir);
		close(dirfd);
		return NULL;
	}
	w->dirfd = dirfd;
	w->fd = -1;
	snprintf(w->dir, sizeof(w->dir), "%s", o->dir);
	snprintf(w->prefix, sizeof(w->prefix), "%s", o->prefix);
	w->rotate_bytes = o->rotate_bytes;
	w->rotate_ns = o->rotate_ns;
	w->version = o->encoding == HW_RECORD_ENC_FIXED ? HW_RECORD_FILE_VERSION_FIXED : HW_RECORD_FILE_VERSION;
	return w;
}

static int time_due(const struct hw_record_writer *w, uint64_t now_ns)
{
	return w->rotate_ns && now_ns >= w->file_start_ns && now_ns - w->file_start_ns >= w->rotate_ns;
}

/* Compact files: one group at a time, encoded straight into the buffer; a group that would take the file
 * past rotate_bytes is dropped from the buffer and encoded again at the start of a new file (a file's
 * first group is coded against zeros). */
static int write_compact(struct hw_record_writer *w, const struct hw_record *r, size_t n, uint64_t now_ns, char *err,
                         size_t errlen)
{
	for (size_t i = 0; i < n;) {
		size_t left = n - i, taken = 0;
		size_t bound = hw_rc_group_bound(left < HW_RC_GROUP_MAX ? left : HW_RC_GROUP_MAX);
		if ((w->fd < 0 && start_file(w, now_ns, err, errlen)) ||
		    (w->buflen + bound > sizeof(w->buf) && flush_buf(w, err, errlen))) {
			w->lost += left;
			return -1;
		}
		size_t len = hw_rc_encode_group(&w->prev, r + i, left, w->buf + w->buflen, &taken);
		if (w->rotate_bytes && w->file_recs && w->file_bytes + len > w->rotate_bytes) {
			if (finish_file(w, err, errlen)) { /* the group's bytes lie past buflen: not written */
				w->lost += left;
				return -1;
			}
			continue;
		}
		w->buflen += len;
		w->file_bytes += len;
		w->file_recs += taken;
		w->count += taken;
		i += taken;
	}
	return 0;
}

int hw_record_writer_write(struct hw_record_writer *w, const struct hw_record *r, size_t n, uint64_t now_ns, char *err,
                           size_t errlen)
{
	/* on an error, the records of this call not yet taken are lost too (they used to vanish uncounted) */
	if (w->fd >= 0 && time_due(w, now_ns) && finish_file(w, err, errlen)) {
		w->lost += n;
		return -1;
	}
	if (w->version == HW_RECORD_FILE_VERSION)
		return write_compact(w, r, n, now_ns, err, errlen);
	for (size_t i = 0; i < n; i++) {
		if ((w->fd >= 0 && w->rotate_bytes && w->file_recs &&
		     w->file_bytes + HW_RECORD_SIZE > w->rotate_bytes && finish_file(w, err, errlen)) ||
		    (w->fd < 0 && start_file(w, now_ns, err, errlen)) ||
		    (w->buflen + HW_RECORD_SIZE > sizeof(w->buf) && flush_buf(w, err, errlen))) {
			w->lost += n - i;
			return -1;
		}
		hw_record_to_le(&r[i], w->buf + w->buflen);
		w->buflen += HW_RECORD_SIZE;
		w->file_bytes += HW_RECORD_SIZE;
		w->file_recs++;
		w->count++;
	}
	return 0;
}

int hw_record_writer_reopen(struct hw_record_writer *w, char *err, size_t errlen)
{
	return finish_file(w, err, errlen);
}

int hw_record_writer_close(struct hw_record_writer *w, char *err, size_t errlen)
{
	if (!w)
		return 0;
	int rc = finish_file(w, err, errlen);
	if (w->fd >= 0)
		close(w->fd);
	close(w->dirfd);
	free(w);
	return rc;
}

uint64_t hw_record_writer_count(const struct hw_record_writer *w)
{
	return w->count;
}

uint64_t hw_record_writer_lost(const struct hw_record_writer *w)
{
	return w->lost;
}

uint64_t hw_record_writer_files(const struct hw_record_writer *w)
{
	return w->files;
}

struct hw_record_reader {
	int fd;
	unsigned version;
	uint64_t left; /* fixed: whole records not yet read */
	uint64_t done; /* records read */
	char path[4096];
	/* compact: bytes read ahead, the groups' reference record and the records of the group being handed out */
	uint8_t *cbuf;
	size_t clen, cpos;
	uint64_t coff; /* file offset of cbuf[0] */
	int eof;
	struct hw_record prev;
	size_t npend, ipend;
	struct hw_record pend[HW_RC_GROUP_MAX];
	uint8_t buf[READER_CHUNK * HW_RECORD_SIZE];
};

/* Check the header and the length; 0, or -1 with a message naming the file and the problem.  *nrec is the
 * number of records of a fixed-size file (version 1); a compact file's is known only once it is read. */
static int check_file(const char *path, const uint8_t *h, ssize_t got, uint64_t size, unsigned *version_out,
                      uint64_t *nrec, char *err, size_t errlen)
{
	if (got < 8 || memcmp(h, HW_RECORD_FILE_MAGIC, 8)) {
		hw_errf(err, errlen, "%s: not a hopwatch record file (wrong magic)", path);
		return -1;
	}
	if (got < HW_RECORD_FILE_HEADER) {
		hw_errf(err, errlen, "%s: truncated header: %zd of %u bytes", path, got, HW_RECORD_FILE_HEADER);
		return -1;
	}
	unsigned version = hw_get_le16(h + 8), rec_size = hw_get_le16(h + 10);
	uint32_t hdr_size = hw_get_le32(h + 12), layout = hw_get_le32(h + 24);
	if (version == 0 || version > HW_RECORD_FILE_VERSION) {
		hw_errf(err, errlen, "%s: format version %u %s (this reader knows versions 1 and %u)", path, version,
		        version ? "is newer than this reader" : "is not valid", HW_RECORD_FILE_VERSION);
		return -1;
	}
	if (rec_size != HW_RECORD_SIZE) {
		hw_errf(err, errlen, "%s: record size %u bytes, expected %u", path, rec_size, HW_RECORD_SIZE);
		return -1;
	}
	if (hdr_size != HW_RECORD_FILE_HEADER) {
		hw_errf(err, errlen, "%s: header size %u bytes, expected %u", path, hdr_size, HW_RECORD_FILE_HEADER);
		return -1;
	}
	if (layout == 0 || layout > HW_RECORD_LAYOUT_VERSION) {
		hw_errf(err, errlen, "%s: record layout version %u %s (this reader knows version %u)", path, layout,
		        layout ? "is newer than this reader" : "is not valid", HW_RECORD_LAYOUT_VERSION);
		return -1;
	}
	*version_out = version;
	*nrec = 0;
	if (version != HW_RECORD_FILE_VERSION_FIXED)
		return 0;
	uint64_t body = size - HW_RECORD_FILE_HEADER;
	if (body % HW_RECORD_SIZE) {
		hw_errf(err, errlen,
		        "%s: torn last record: %llu bytes after the last whole record (file is %llu bytes, records "
		        "are %u)",
		        path, (unsigned long long)(body % HW_RECORD_SIZE), (unsigned long long)size, HW_RECORD_SIZE);
		return -1;
	}
	*nrec = body / HW_RECORD_SIZE;
	return 0;
}

struct hw_record_reader *hw_record_reader_open(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		hw_errf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	uint8_t h[HW_RECORD_FILE_HEADER];
	uint64_t nrec = 0;
	unsigned version = 0;
	ssize_t got = 0;
	if (fstat(fd, &st) || (got = hw_read_full(fd, h, sizeof(h))) < 0) {
		hw_errf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		hw_errf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if (check_file(path, h, got, (uint64_t)st.st_size, &version, &nrec, err, errlen)) {
		close(fd);
		return NULL;
	}
	struct hw_record_reader *r = calloc(1, sizeof(*r));
	if (!r || (version != HW_RECORD_FILE_VERSION_FIXED && !(r->cbuf = malloc(COMPACT_BUF)))) {
		hw_errf(err, errlen, "%s: out of memory", path);
		free(r);
		close(fd);
		return NULL;
	}
	r->fd = fd;
	r->version = version;
	r->left = nrec;
	r->coff = HW_RECORD_FILE_HEADER;
	snprintf(r->path, sizeof(r->path), "%s", path);
	return r;
}

static long read_fixed(struct hw_record_reader *r, struct hw_record *out, size_t n, char *err, size_t errlen)
{
	size_t total = 0;
	if (n > (size_t)r->left)
		n = (size_t)r->left;
	while (total < n) {
		size_t chunk = n - total < READER_CHUNK ? n - total : READER_CHUNK;
		ssize_t got = hw_read_full(r->fd, r->buf, chunk * HW_RECORD_SIZE);
		if (got < 0) {
			hw_errf(err, errlen, "%s: read after record %llu: %s", r->path, (unsigned long long)r->done,
			        strerror(errno));
			return -1;
		}
		if ((size_t)got != chunk * HW_RECORD_SIZE) {
			hw_errf(err, errlen, "%s: file shrank while reading: ends after record %llu", r->path,
			        (unsigned long long)(r->done + (size_t)got / HW_RECORD_SIZE));
			return -1;
		}
		for (size_t i = 0; i < chunk; i++)
			hw_record_from_le(r->buf + i * HW_RECORD_SIZE, &out[total + i]);
		total += chunk;
		r->done += chunk;
		r->left -= chunk;
	}
	return (long)total;
}

/* Keep at least COMPACT_REFILL bytes ahead (or the rest of the file) in cbuf.  0, or -1 with err set. */
static int refill(struct hw_record_reader *r, char *err, size_t errlen)
{
	if (r->eof || r->clen - r->cpos >= COMPACT_REFILL)
		return 0;
	memmove(r->cbuf, r->cbuf + r->cpos, r->clen - r->cpos);
	r->clen -= r->cpos;
	r->coff += r->cpos;
	r->cpos = 0;
	ssize_t got = hw_read_full(r->fd, r->cbuf + r->clen, COMPACT_BUF - r->clen);
	if (got < 0) {
		hw_errf(err, errlen, "%s: read after record %llu: %s", r->path, (unsigned long long)r->done,
		        strerror(errno));
		return -1;
	}
	r->clen += (size_t)got;
	r->eof = (size_t)got < COMPACT_BUF - (r->clen - (size_t)got);
	return 0;
}

static long read_compact(struct hw_record_reader *r, struct hw_record *out, size_t n, char *err, size_t errlen)
{
	size_t total = 0;
	char why[256];
	while (total < n) {
		if (r->ipend < r->npend) {
			size_t k = r->npend - r->ipend < n - total ? r->npend - r->ipend : n - total;
			memcpy(out + total, r->pend + r->ipend, k * sizeof(*out));
			r->ipend += k;
			total += k;
			r->done += k;
			continue;
		}
		if (refill(r, err, errlen))
			return -1;
		if (r->cpos == r->clen)
			break; /* the end of the file, after a whole group */
		/* a group that fits in what the caller asked for is decoded straight into it, not copied */
		int direct = r->cbuf[r->cpos] <= n - total;
		size_t k = 0;
		long used = hw_rc_decode_group(&r->prev, r->cbuf + r->cpos, r->clen - r->cpos,
		                               direct ? out + total : r->pend, &k, r->coff + r->cpos, why, sizeof(why));
		if (used < 0) {
			hw_errf(err, errlen, "%s: %s (after record %llu)", r->path, why, (unsigned long long)r->done);
			return -1;
		}
		if (used == 0 && r->eof) {
			hw_errf(err, errlen,
			        "%s: torn last group: the file ends %llu bytes into the group at byte %llu (after "
			        "record %llu)",
			        r->path, (unsigned long long)(r->clen - r->cpos),
			        (unsigned long long)(r->coff + r->cpos), (unsigned long long)r->done);
			return -1;
		}
		if (used == 0) { /* cannot happen: COMPACT_REFILL is more than any group the decoder accepts */
			hw_errf(err, errlen, "%s: the group at byte %llu is longer than %u bytes (after record %llu)",
			        r->path, (unsigned long long)(r->coff + r->cpos), COMPACT_REFILL,
			        (unsigned long long)r->done);
			return -1;
		}
		r->cpos += (size_t)used;
		if (direct) {
			total += k;
			r->done += k;
		} else {
			r->npend = k;
			r->ipend = 0;
		}
	}
	return (long)total;
}

long hw_record_reader_read(struct hw_record_reader *r, struct hw_record *out, size_t n, char *err, size_t errlen)
{
	if (r->version == HW_RECORD_FILE_VERSION_FIXED)
		return read_fixed(r, out, n, err, errlen);
	return read_compact(r, out, n, err, errlen);
}

void hw_record_reader_close(struct hw_record_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->cbuf);
	free(r);
}
