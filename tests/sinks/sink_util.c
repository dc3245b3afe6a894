/* Helpers for the sink tests: temporary directories, records whose fields all differ, and a
 * field-by-field comparison that names the field that differs. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/stream.h"
#include "sink_util.h"

void tmpdir_make(char *buf, size_t len)
{
	const char *base = getenv("TMPDIR");
	snprintf(buf, len, "%s/hw-sinks-XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(buf));
}

void tmpdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char path[1024];
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

int sink_fx_setup(void **state)
{
	struct sink_fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	tmpdir_make(f->dir, sizeof(f->dir));
	snprintf(f->addr, sizeof(f->addr), "unix:%s/stream.sock", f->dir);
	*state = f;
	return 0;
}

int sink_fx_teardown(void **state)
{
	struct sink_fx *f = *state;
	tmpdir_remove(f->dir);
	free(f);
	return 0;
}

struct hw_stream_listener *fx_listen(struct sink_fx *f, const char *addr)
{
	struct hw_stream_listener *l = hw_stream_listen(addr, f->err, sizeof(f->err));
	if (!l)
		fail_msg("listen: %s", f->err);
	return l;
}

struct hw_stream_sender *fx_sender(struct sink_fx *f, const char *addr)
{
	struct hw_stream_sender *s = hw_stream_sender_open(addr, f->err, sizeof(f->err));
	if (!s)
		fail_msg("sender: %s", f->err);
	return s;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int dir_names(const char *dir, int want_hidden, char **names, int max)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((e->d_name[0] == '.') != (want_hidden != 0))
			continue;
		assert_in_range(n, 0, max - 1);
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), cmp_names);
	return n;
}

void names_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
}

void rec_fill(struct hw_record *r, uint32_t seed)
{
	memset(r, 0, sizeof(*r));
	uint64_t s = seed;
	r->time_ns = 0x1000000000000000u + s * 1000 + 1;
	r->ingress_ts = 0x2000000000000000u + s * 1000 + 2;
	r->egress_ts = 0x3000000000000000u + s * 1000 + 3;
	r->flow_hash = 0xf000000000000000u + s * 1000 + 4;
	uint32_t *u32[] = {&r->valid,        &r->report_node,     &r->report_seq,      &r->node_id,
	                   &r->ingress_port, &r->egress_port,     &r->l2_ingress_port, &r->l2_egress_port,
	                   &r->hop_latency,  &r->queue_occupancy, &r->egress_tx_util,  &r->buffer_occupancy,
	                   &r->roce_dest_qp};
	for (unsigned i = 0; i < sizeof(u32) / sizeof(u32[0]); i++)
		*u32[i] = (uint32_t)((i + 1) << 24) + seed * 100 + i;
	r->src_port = (uint16_t)(0x4000 + seed * 2);
	r->dst_port = (uint16_t)(0x8000 + seed * 2 + 1);
	for (int i = 0; i < 16; i++) {
		r->src_ip[i] = (uint8_t)(seed + i);
		r->dst_ip[i] = (uint8_t)(seed + 0x80 + i);
	}
	uint8_t *u8[] = {&r->hw_id,    &r->report_flags, &r->format,     &r->int_version, &r->hop_index,
	                 &r->path_len, &r->queue_id,     &r->buffer_id,  &r->drop_reason, &r->ip_proto,
	                 &r->dscp,     &r->ecn,          &r->roce_opcode};
	for (unsigned i = 0; i < sizeof(u8) / sizeof(u8[0]); i++)
		*u8[i] = (uint8_t)(seed * 16 + i + 1);
}

#define EQ(f)                                                                                                          \
	do {                                                                                                           \
		if (a->f != b->f)                                                                                      \
			fail_msg("field " #f ": %llu != %llu", (unsigned long long)a->f, (unsigned long long)b->f);    \
	} while (0)
#define EQ_MEM(f)                                                                                                      \
	do {                                                                                                           \
		if (memcmp(a->f, b->f, sizeof(a->f)))                                                                  \
			fail_msg("field " #f " differs");                                                              \
	} while (0)

/* every field of the list (HW_RECORD_FIELDS, record.h), then the padding */
#define EQ_u8 EQ
#define EQ_u16 EQ
#define EQ_u32 EQ
#define EQ_u64 EQ
#define EQ_ip16 EQ_MEM
#define EQ_FIELD(x, name, type, le, valid, ch, kind, jpos) EQ_##type(name);

void rec_assert_equal(const struct hw_record *a, const struct hw_record *b)
{
	HW_RECORD_FIELDS(EQ_FIELD, _)
	EQ_MEM(pad_);
}
