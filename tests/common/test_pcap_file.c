/* The direct pcap reader against libpcap: the same frames, times and ending on every capture under tests/ and
 * data/, a generated one, their byte-swapped and ns rewrites, damaged files.  Usage: test_pcap_file SRC-ROOT GEN */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/pcap_file.h"
#include "hopwatch/pcap_input.h"

static const char *source_root, *gen;
static char tmpdir[] = "/tmp/test_pcap_file.XXXXXX";

/* Every frame handed on, concatenated, with its length and time. */
struct frames {
	uint8_t *bytes;
	size_t used, room;
	size_t *len;
	uint64_t *t;
	size_t n, cap;
	volatile int *stop_after_first; /* set on the first frame when not NULL */
};

static void add_frame(void *arg, const uint8_t *frame, size_t len, uint64_t t)
{
	struct frames *f = arg;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->len = realloc(f->len, f->cap * sizeof(*f->len));
		f->t = realloc(f->t, f->cap * sizeof(*f->t));
		assert_non_null(f->len);
		assert_non_null(f->t);
	}
	if (f->used + len > f->room) {
		f->room = 2 * (f->used + len);
		f->bytes = realloc(f->bytes, f->room);
		assert_non_null(f->bytes);
	}
	if (len)
		memcpy(f->bytes + f->used, frame, len);
	f->used += len;
	f->len[f->n] = len;
	f->t[f->n++] = t;
	if (f->stop_after_first)
		*f->stop_after_first = 1;
}

static void free_frames(struct frames *f)
{
	free(f->bytes);
	free(f->len);
	free(f->t);
	memset(f, 0, sizeof(*f));
}

struct outcome {
	int rc;
	struct frames f;
	struct hw_pcap_read_stats st;
	char err[512];
};

static void read_with(const char *path, enum hw_pcap_read how, struct outcome *o, int stop_after_first)
{
	static volatile int stop;
	memset(o, 0, sizeof(*o));
	stop = 0;
	if (stop_after_first)
		o->f.stop_after_first = &stop;
	o->rc = hw_pcap_read_file_with(path, how, add_frame, &o->f, &stop, &o->st, o->err, sizeof(o->err));
}

/* AUTO and DIRECT read path exactly as libpcap does (frames, lengths, times, return); AUTO used the
 * direct reader when want_direct.  Returns the number of frames. */
static size_t same_as_libpcap(const char *path, int want_direct, int stop_after_first)
{
	struct outcome lib, dir;
	read_with(path, HW_PCAP_READ_LIBPCAP, &lib, stop_after_first);
	read_with(path, HW_PCAP_READ_AUTO, &dir, stop_after_first);
	if (dir.st.direct != want_direct || dir.rc != lib.rc || dir.f.n != lib.f.n)
		fprintf(stderr, "%s: libpcap rc %d, %zu frames (%s); auto rc %d, %zu frames, direct %d (%s)\n", path,
		        lib.rc, lib.f.n, lib.rc < 0 ? lib.err : "", dir.rc, dir.f.n, dir.st.direct,
		        dir.rc < 0 ? dir.err : "");
	assert_int_equal(dir.st.direct, want_direct);
	assert_int_equal(dir.rc, lib.rc);
	assert_int_equal(dir.f.n, lib.f.n);
	assert_int_equal(dir.st.frames, dir.f.n);
	assert_int_equal(lib.st.frames, lib.f.n);
	assert_int_equal(dir.f.used, lib.f.used);
	assert_memory_equal(dir.f.len, lib.f.len, lib.f.n * sizeof(size_t));
	assert_memory_equal(dir.f.t, lib.f.t, lib.f.n * sizeof(uint64_t));
	if (lib.f.used)
		assert_memory_equal(dir.f.bytes, lib.f.bytes, lib.f.used);
	if (want_direct) { /* DIRECT reads it the same as AUTO */
		struct outcome only;
		read_with(path, HW_PCAP_READ_DIRECT, &only, stop_after_first);
		assert_int_equal(only.rc, dir.rc);
		assert_int_equal(only.f.n, dir.f.n);
		free_frames(&only.f);
	}
	size_t n = lib.f.n;
	free_frames(&lib.f);
	free_frames(&dir.f);
	return n;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static const char *spit(const char *name, const void *b, size_t len)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
	return path;
}

static void swap4(uint8_t *p)
{
	uint8_t a = p[0], b = p[1];
	p[0] = p[3];
	p[1] = p[2];
	p[2] = b;
	p[3] = a;
}

/* A little-endian classic pcap file rewritten as a big-endian host writes it: every header field swapped,
 * frame bytes untouched (one way only: the record lengths are read little-endian). */
static void to_big_endian(uint8_t *b, size_t len)
{
	swap4(b);
	uint8_t t = b[4]; /* version major and minor, 16 bits each */
	b[4] = b[5];
	b[5] = t;
	t = b[6];
	b[6] = b[7];
	b[7] = t;
	for (size_t o = 8; o < 24; o += 4)
		swap4(b + o);
	for (size_t o = 24; o + 16 <= len;) {
		uint32_t caplen = (uint32_t)b[o + 8] | (uint32_t)b[o + 9] << 8 | (uint32_t)b[o + 10] << 16 |
		                  (uint32_t)b[o + 11] << 24;
		for (size_t k = 0; k < 16; k += 4)
			swap4(b + o + k);
		o += 16 + caplen;
	}
}

static size_t n_captures;

/* One capture of the tree: itself, byte-swapped, and (a microsecond file) with the nanosecond magic. */
static int check_capture(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	size_t l = strlen(path);
	if (type != FTW_F || l < 5 || strcmp(path + l - 5, ".pcap"))
		return 0;
	size_t len;
	uint8_t *b = (uint8_t *)slurp(path, &len);
	struct hw_pcap_file_format f;
	int classic = hw_pcap_file_header(b, len, &f);
	size_t n = same_as_libpcap(path, classic, 0);
	if (classic) {
		assert_true(n > 0);
		assert_int_equal(same_as_libpcap(path, 1, 1), 1); /* a stop after the first frame */
		uint8_t *big = malloc(len);
		assert_non_null(big);
		memcpy(big, b, len);
		to_big_endian(big, len);
		assert_int_equal(hw_pcap_file_header(big, len, &f), 1);
		assert_int_equal(f.swapped, 1);
		assert_int_equal(same_as_libpcap(spit("swapped.pcap", big, len), 1, 0), n);
		free(big);
		if (!f.nanoseconds) {
			/* the same numbers read as nanoseconds: libpcap no longer scales them by 1000 */
			b[0] = 0x4d;
			b[1] = 0x3c;
			assert_int_equal(same_as_libpcap(spit("nsec.pcap", b, len), 1, 0), n);
		}
	}
	printf("# %s: %zu frames, %s\n", path, n, classic ? "direct" : "libpcap");
	free(b);
	n_captures++;
	return 0;
}

static void every_capture_in_the_tree(void **state)
{
	(void)state;
	char dir[1024];
	n_captures = 0;
	snprintf(dir, sizeof(dir), "%s/tests", source_root);
	assert_int_equal(nftw(dir, check_capture, 16, FTW_PHYS), 0);
	snprintf(dir, sizeof(dir), "%s/data", source_root);
	assert_int_equal(nftw(dir, check_capture, 16, FTW_PHYS), 0);
	/* 9 at the time of writing: tests/p4/data (5), tests/wire/data/interop (2), data/samples/incast (2) */
	assert_true(n_captures >= 9);
}

static void a_generated_capture(void **state)
{
	(void)state;
	char path[256], cmd[1024];
	snprintf(path, sizeof(path), "%s/gen.pcap", tmpdir);
	snprintf(cmd, sizeof(cmd), "%s reports --format tr2.0 --count 3000 --hops 1-6 --seed 5 --out %s 2>/dev/null",
	         gen, path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(same_as_libpcap(path, 1, 0), 3000); /* one report per frame */
}

/* Hand-made files: a header, then records appended with rec(). */
struct file {
	uint8_t b[4096];
	size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void header(struct file *f, uint32_t magic, uint32_t snaplen)
{
	memset(f, 0, sizeof(*f));
	put32(f->b, magic);
	f->b[4] = 2; /* version 2.4, little-endian */
	f->b[6] = 4;
	put32(f->b + 16, snaplen);
	put32(f->b + 20, 1); /* Ethernet */
	f->len = 24;
}

/* A record of caplen bytes (data bytes: the index of the byte, mod 251) of which only have are written. */
static void rec(struct file *f, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t have)
{
	put32(f->b + f->len, sec);
	put32(f->b + f->len + 4, frac);
	put32(f->b + f->len + 8, caplen);
	put32(f->b + f->len + 12, caplen);
	f->len += 16;
	for (uint32_t i = 0; i < have; i++)
		f->b[f->len++] = (uint8_t)(i % 251);
}

/* Walk f in memory: it must end as want_end after want_frames frames, and read from a file named name it
 * must give what libpcap gives, the same number of frames.  *fr keeps the walk's frames (free_frames). */
static void check(const struct file *f, const char *name, enum hw_pcap_file_end want_end, uint64_t want_frames,
                  struct frames *fr, struct hw_pcap_file_walk *w)
{
	struct hw_pcap_file_format fmt;
	assert_int_equal(hw_pcap_file_header(f->b, f->len, &fmt), 1);
	memset(fr, 0, sizeof(*fr));
	hw_pcap_file_walk(f->b, f->len, &fmt, add_frame, fr, NULL, w);
	assert_string_equal(hw_pcap_file_end_name(w->end), hw_pcap_file_end_name(want_end));
	assert_int_equal(w->frames, want_frames);
	assert_int_equal(fr->n, want_frames);
	assert_int_equal(same_as_libpcap(spit(name, f->b, f->len), 1, 0), want_frames);
}

static void damaged_files(void **state)
{
	(void)state;
	struct file f;
	struct frames fr;
	struct hw_pcap_file_walk w;

	/* One whole 60-byte record, then 5 bytes of the next header: record 1 handed on, the walk ends at byte
	 * 24 + 16 + 60 = 100 with the header cut short. */
	header(&f, 0xa1b2c3d4, 65535);
	rec(&f, 10, 20, 60, 60);
	memset(f.b + f.len, 0, 5);
	f.len += 5;
	check(&f, "short-header.pcap", HW_PCAP_FILE_SHORT_HEADER, 1, &fr, &w);
	assert_string_equal(hw_pcap_file_end_name(w.end), "truncated_record_header");
	assert_int_equal(w.offset, 100);
	assert_int_equal(fr.len[0], 60);
	assert_int_equal(fr.t[0], 10000020000ull); /* microseconds: 10 s and 20 us = 10,000,020,000 ns */
	free_frames(&fr);

	/* caplen 100 with 50 bytes left: nothing handed on, the walk ends at the record's header (byte 24) */
	header(&f, 0xa1b2c3d4, 65535);
	rec(&f, 1, 0, 100, 50);
	check(&f, "short-data.pcap", HW_PCAP_FILE_SHORT_DATA, 0, &fr, &w);
	assert_int_equal(w.offset, 24);
	assert_int_equal(w.caplen, 100);
	free_frames(&fr);
	/* the same, one byte short (99 of 100), and with the data whole: 1 frame, the end */
	f.len = 24 + 16 + 99;
	memset(f.b + 24 + 16 + 50, 7, 50);
	check(&f, "short-by-one.pcap", HW_PCAP_FILE_SHORT_DATA, 0, &fr, &w);
	free_frames(&fr);
	f.len = 24 + 16 + 100;
	check(&f, "whole.pcap", HW_PCAP_FILE_EOF, 1, &fr, &w);
	free_frames(&fr);

	/* caplen 262,145, one over libpcap's limit for Ethernet: refused, however many bytes follow */
	header(&f, 0xa1b2c3d4, 0);
	rec(&f, 1, 0, 262145, 0);
	check(&f, "over-limit.pcap", HW_PCAP_FILE_CAPLEN_OVER_LIMIT, 0, &fr, &w);
	assert_int_equal(w.caplen, 262145);
	free_frames(&fr);
	/* caplen 0xffffffff: the same, and no overflow in the bytes-left check */
	header(&f, 0xa1b2c3d4, 65535);
	rec(&f, 1, 0, 0xffffffffu, 0);
	check(&f, "caplen-max.pcap", HW_PCAP_FILE_CAPLEN_OVER_LIMIT, 0, &fr, &w);
	free_frames(&fr);

	/* snaplen 64 and a 100-byte record (a writer that did not cut), then a 20-byte one: the first is handed
	 * on as its first 64 bytes and the walk skips all 100; the second follows whole. */
	header(&f, 0xa1b2c3d4, 64);
	rec(&f, 1, 0, 100, 100);
	rec(&f, 2, 0, 20, 20);
	check(&f, "over-snaplen.pcap", HW_PCAP_FILE_EOF, 2, &fr, &w);
	assert_int_equal(w.cut, 1);
	assert_int_equal(fr.len[0], 64);
	assert_int_equal(fr.len[1], 20);
	assert_int_equal(fr.bytes[63], 63);
	assert_int_equal(fr.bytes[64], 0); /* the second frame's first byte, not the first one's 65th (64) */
	assert_int_equal(w.offset, 24 + 16 + 100 + 16 + 20);
	free_frames(&fr);
	/* ... and cut short inside the part beyond the snaplen: libpcap refuses it, so does the walk */
	f.len = 24 + 16 + 80;
	check(&f, "over-snaplen-short.pcap", HW_PCAP_FILE_SHORT_DATA, 0, &fr, &w);
	free_frames(&fr);

	/* snaplen 0 stands for 262,144: a 1,000-byte frame is whole; the zero-length record is a frame too */
	header(&f, 0xa1b2c3d4, 0);
	rec(&f, 1, 0, 1000, 1000);
	rec(&f, 1, 1, 0, 0);
	check(&f, "snaplen-0.pcap", HW_PCAP_FILE_EOF, 2, &fr, &w);
	assert_int_equal(w.cut, 0);
	assert_int_equal(fr.len[0], 1000);
	assert_int_equal(fr.len[1], 0);
	free_frames(&fr);

	/* times out of the usual range, read as libpcap's signed 32-bit fields:
	 * sec 0xffffffff = -1, usec 2,000,000 (not normalised) -> -1e9 + 2e9 = 1e9 ns */
	header(&f, 0xa1b2c3d4, 65535);
	rec(&f, 0xffffffffu, 2000000, 14, 14);
	check(&f, "odd-usec.pcap", HW_PCAP_FILE_EOF, 1, &fr, &w);
	assert_int_equal(fr.t[0], 1000000000ull);
	free_frames(&fr);
	/* byte-swapped, libpcap reads the same fields as unsigned: 0xffffffff s = 4,294,967,295 s and
	 * 2,000,000 us -> 4,294,967,295e9 + 2e9 = 4,294,967,297,000,000,000 ns */
	to_big_endian(f.b, f.len);
	check(&f, "odd-usec-be.pcap", HW_PCAP_FILE_EOF, 1, &fr, &w);
	assert_int_equal(fr.t[0], 4294967297000000000ull);
	free_frames(&fr);
	/* nanosecond file, sec 0x80000000 = -2^31, nsec 0xffffffff = -1 -> 2^64 - 2^31 * 1e9 - 1 (mod 2^64) */
	header(&f, 0xa1b23c4d, 65535);
	rec(&f, 0x80000000u, 0xffffffffu, 14, 14);
	check(&f, "odd-nsec.pcap", HW_PCAP_FILE_EOF, 1, &fr, &w);
	assert_int_equal(fr.t[0], 0ull - 2147483648ull * 1000000000ull - 1ull);
	free_frames(&fr);
	/* byte-swapped: 2^31 s and 4,294,967,295 ns -> 2,147,483,648e9 + 4,294,967,295 (no wrap: < 2^64) */
	to_big_endian(f.b, f.len);
	check(&f, "odd-nsec-be.pcap", HW_PCAP_FILE_EOF, 1, &fr, &w);
	assert_int_equal(fr.t[0], 2147483648000000000ull + 4294967295ull);
	free_frames(&fr);

	/* a header alone: no frame, the end */
	header(&f, 0xa1b2c3d4, 65535);
	check(&f, "empty.pcap", HW_PCAP_FILE_EOF, 0, &fr, &w);
	free_frames(&fr);
}

/* A file of several read chunks (HW_PCAP_READ_CHUNK) built in memory: records of 60 to 1,514 bytes, and
 * one of 200,000 bytes that starts 1,000 bytes before the first chunk ends, so that the reader must carry
 * it (and, past it, whichever records the next chunks end inside of) into the next read. */
struct big {
	uint8_t *b;
	size_t len, room;
	size_t n;          /* records */
	size_t last_start; /* where the last record begins */
};

static void big_rec(struct big *f, uint32_t caplen, uint32_t stamped_caplen)
{
	if (f->len + 16 + caplen > f->room) {
		f->room = 2 * (f->len + 16 + caplen);
		f->b = realloc(f->b, f->room);
		assert_non_null(f->b);
	}
	f->last_start = f->len;
	put32(f->b + f->len, (uint32_t)f->n);            /* seconds: the record's number */
	put32(f->b + f->len + 4, (uint32_t)f->n * 1000); /* microseconds */
	put32(f->b + f->len + 8, stamped_caplen);
	put32(f->b + f->len + 12, caplen);
	f->len += 16;
	for (uint32_t i = 0; i < caplen; i++)
		f->b[f->len++] = (uint8_t)((i + f->n) % 251);
	f->n++;
}

static void across_read_chunks(void **state)
{
	(void)state;
	struct file h; /* the file header, as the small files' */
	header(&h, 0xa1b2c3d4, 262144);
	struct big f = {.b = malloc(h.len), .len = h.len, .room = h.len};
	assert_non_null(f.b);
	memcpy(f.b, h.b, h.len);
	/* small records up to 1,000 bytes before the first chunk's end, then the large one across it */
	for (uint32_t i = 0; f.len + 16 + 1514 < HW_PCAP_READ_CHUNK - 1000; i++)
		big_rec(&f, 60 + (i * 37) % 1455, 60 + (i * 37) % 1455);
	while (f.len < HW_PCAP_READ_CHUNK - 1000)
		big_rec(&f, 60, 60);
	const size_t big_start = f.len;
	big_rec(&f, 200000, 200000);
	assert_true(big_start < HW_PCAP_READ_CHUNK && f.len > HW_PCAP_READ_CHUNK);
	for (uint32_t i = 0; f.len < 3 * HW_PCAP_READ_CHUNK + 12345; i++)
		big_rec(&f, 60 + (i * 101) % 1455, 60 + (i * 101) % 1455);
	const size_t n = f.n;

	/* whole: every record handed on, as libpcap hands them on */
	assert_int_equal(same_as_libpcap(spit("chunks.pcap", f.b, f.len), 1, 0), n);
	/* stopped after the first frame: one frame, rc 1, as libpcap */
	assert_int_equal(same_as_libpcap(spit("chunks.pcap", f.b, f.len), 1, 1), 1);

	/* cut 7 bytes before the end, inside the last record: all but it, and the error names it and its byte */
	struct outcome o;
	char want[128];
	const char *p = spit("chunks-cut.pcap", f.b, f.len - 7);
	assert_int_equal(same_as_libpcap(p, 1, 0), n - 1);
	read_with(p, HW_PCAP_READ_DIRECT, &o, 0);
	assert_int_equal(o.rc, -1);
	assert_int_equal(o.st.frames, n - 1);
	snprintf(want, sizeof(want), "truncated_record: record %zu (byte %zu) has caplen", n, f.last_start);
	assert_non_null(strstr(o.err, want));
	free_frames(&o.f);

	/* a caplen over libpcap's limit after the third chunk: the records before it, and its byte */
	const size_t bad_start = f.len;
	big_rec(&f, 0, HW_PCAP_MAX_CAPLEN + 1);
	p = spit("chunks-over.pcap", f.b, f.len);
	assert_int_equal(same_as_libpcap(p, 1, 0), n);
	read_with(p, HW_PCAP_READ_DIRECT, &o, 0);
	assert_int_equal(o.rc, -1);
	snprintf(want, sizeof(want), "caplen_over_limit: record %zu (byte %zu) has caplen %u", n + 1, bad_start,
	         HW_PCAP_MAX_CAPLEN + 1);
	assert_non_null(strstr(o.err, want));
	free_frames(&o.f);
	free(f.b);
}

/* Files the direct reader leaves to libpcap: AUTO reads them as libpcap does, DIRECT refuses them. */
static void left_to_libpcap(void **state)
{
	(void)state;
	struct file f;
	struct outcome o;
	/* version 2.3: libpcap may read caplen and len exchanged */
	header(&f, 0xa1b2c3d4, 65535);
	f.b[6] = 3;
	rec(&f, 1, 0, 60, 60);
	const char *p = spit("v23.pcap", f.b, f.len);
	assert_int_equal(same_as_libpcap(p, 0, 0), 1);
	read_with(p, HW_PCAP_READ_DIRECT, &o, 0);
	assert_int_equal(o.rc, -1);
	assert_non_null(strstr(o.err, "v23.pcap"));
	free_frames(&o.f);
	/* link type 1 with 'an FCS of 4 bytes is present' (bit 26 and 4 in bits 28-31): libpcap reads it as
	 * Ethernet, the direct reader leaves it */
	header(&f, 0xa1b2c3d4, 65535);
	put32(f.b + 20, 0x44000001u);
	rec(&f, 1, 0, 60, 60);
	assert_int_equal(same_as_libpcap(spit("fcs.pcap", f.b, f.len), 0, 0), 1);
	/* Raw IP (link type 101): both refuse it as not Ethernet */
	header(&f, 0xa1b2c3d4, 65535);
	put32(f.b + 20, 101);
	rec(&f, 1, 0, 20, 20);
	assert_int_equal(same_as_libpcap(spit("raw.pcap", f.b, f.len), 0, 0), 0);
	/* shorter than a file header, and empty: libpcap's error either way */
	assert_int_equal(same_as_libpcap(spit("short.pcap", f.b, 10), 0, 0), 0);
	assert_int_equal(same_as_libpcap(spit("zero.pcap", f.b, 0), 0, 0), 0);

	/* pcapng (little-endian): a Section Header Block (28 bytes), an Interface Description Block (20
	 * bytes: link type 1, snaplen 0) and one Enhanced Packet Block of a 14-byte frame (32 + 16 bytes). */
	// clang-format off
	static const uint8_t ng[] = {
		0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, /* SHB, byte-order magic, 1.0 */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0,             /* section length -1 */
		1, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0,             /* IDB: Ethernet */
		6, 0, 0, 0, 48, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,              /* EPB: if 0, ts 0:1 */
		14, 0, 0, 0, 14, 0, 0, 0,                                                 /* captured, original */
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 0,                      /* frame, padded to 4 */
		48, 0, 0, 0,
	};
	// clang-format on
	p = spit("one.pcapng", ng, sizeof(ng));
	assert_int_equal(same_as_libpcap(p, 0, 0), 1);
	read_with(p, HW_PCAP_READ_AUTO, &o, 0);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.f.n, 1);
	assert_int_equal(o.f.len[0], 14);
	/* default resolution microseconds: 1 us = 1,000 ns */
	assert_int_equal(o.f.t[0], 1000);
	free_frames(&o.f);
}

/* "-" is standard input, read through libpcap: the incast sample from it reads as from its path (run last:
 * libpcap closes standard input at the end). */
static void standard_input(void **state)
{
	(void)state;
	char path[1024];
	snprintf(path, sizeof(path), "%s/data/samples/incast/reports.pcap", source_root);
	assert_int_equal(hw_pcap_is_file("-"), 1);
	struct outcome lib, in;
	read_with(path, HW_PCAP_READ_LIBPCAP, &lib, 0);
	assert_non_null(freopen(path, "rb", stdin));
	read_with("-", HW_PCAP_READ_AUTO, &in, 0);
	assert_int_equal(in.rc, 0);
	assert_int_equal(in.st.direct, 0);
	assert_int_equal(in.f.n, 14000); /* the sample's truth.json: "reports": {"packets": 14000, ...} */
	assert_int_equal(in.f.n, lib.f.n);
	assert_memory_equal(in.f.t, lib.f.t, lib.f.n * sizeof(uint64_t));
	assert_int_equal(in.f.used, lib.f.used);
	assert_memory_equal(in.f.bytes, lib.f.bytes, lib.f.used);
	free_frames(&lib.f);
	free_frames(&in.f);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_pcap_file SOURCE-ROOT HOPWATCH-GEN\n");
		return 2;
	}
	source_root = argv[1];
	gen = argv[2];
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_capture_in_the_tree),
	    cmocka_unit_test(a_generated_capture),
	    cmocka_unit_test(damaged_files),
	    cmocka_unit_test(across_read_chunks),
	    cmocka_unit_test(left_to_libpcap),
	    cmocka_unit_test(standard_input),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
