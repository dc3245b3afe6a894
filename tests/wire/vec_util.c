/* Helpers shared by the tests/wire/ cmocka programs; see vec_util.h. */
#include "vec_util.h"

#include <stdint.h>
#include <string.h>

void vec_out_init(struct vec_out *v)
{
	memset(v->recs, 0xA5, sizeof(v->recs));
	memset(v->reps, 0xA5, sizeof(v->reps));
	memset(&v->out, 0, sizeof(v->out));
	v->out.recs = v->recs;
	v->out.rec_cap = VEC_MAX_RECS;
	v->out.reps = v->reps;
	v->out.rep_cap = VEC_MAX_REPS;
	v->out.n_recs = 0xdead; /* the parser must set the counts */
	v->out.n_reps = 0xdead;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t vec_ipv4_csum(const uint8_t *hdr, unsigned ihl_words)
{
	uint32_t sum = 0;
	for (unsigned i = 0; i < ihl_words * 4; i += 2) {
		if (i == 10)
			continue; /* the checksum field itself counts as 0 */
		sum += (uint32_t)(hdr[i] << 8 | hdr[i + 1]);
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t vec_ip4_frame(uint8_t *buf, size_t cap, uint8_t proto, const uint8_t *l4, size_t len, uint8_t tos)
{
	static const uint8_t eth[14] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02,
	                                0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00};
	size_t total = 14 + 20 + len;
	if (total > cap || 20 + len > 0xffff)
		return 0;
	memcpy(buf, eth, 14);
	uint8_t *ip = buf + 14;
	ip[0] = 0x45; /* version 4, IHL 5 */
	ip[1] = tos;
	put16(ip + 2, (uint16_t)(20 + len));
	put16(ip + 4, 0);      /* identification */
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;            /* TTL */
	ip[9] = proto;
	put16(ip + 10, 0);
	ip[12] = 10, ip[13] = 0, ip[14] = 0, ip[15] = 1;
	ip[16] = 10, ip[17] = 0, ip[18] = 0, ip[19] = 100;
	put16(ip + 10, vec_ipv4_csum(ip, 5));
	memcpy(ip + 20, l4, len);
	return total;
}

size_t vec_udp4_frame(uint8_t *buf, size_t cap, const uint8_t *payload, size_t len, uint16_t sport, uint16_t dport,
                      uint8_t tos)
{
	uint8_t udp[2048];
	if (8 + len > sizeof(udp))
		return 0;
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, (uint16_t)(8 + len));
	put16(udp + 6, 0);
	memcpy(udp + 8, payload, len);
	return vec_ip4_frame(buf, cap, 17, udp, 8 + len, tos);
}

void vec_check_frame(const uint8_t *frame, size_t len)
{
	size_t off = 12;
	assert_in_range(len, 14, SIZE_MAX);
	unsigned type = (unsigned)(frame[off] << 8 | frame[off + 1]);
	while (type == 0x8100 || type == 0x88a8) { /* skip VLAN tags */
		off += 4;
		assert_in_range(len, off + 2, SIZE_MAX);
		type = (unsigned)(frame[off] << 8 | frame[off + 1]);
	}
	off += 2;
	if (type == 0x8847) { /* skip MPLS label stack entries up to the one with S set; IP below */
		do {
			off += 4;
			assert_in_range(len, off + 1, SIZE_MAX);
		} while (!(frame[off - 2] & 1));
		type = frame[off] >> 4 == 6 ? 0x86dd : 0x0800;
	}
	if (type == 0x86dd) {
		assert_in_range(len, off + 40, SIZE_MAX);
		assert_int_equal(frame[off] >> 4, 6);
		assert_int_equal(frame[off + 4] << 8 | frame[off + 5], len - off - 40);
		return;
	}
	assert_int_equal(type, 0x0800);
	assert_in_range(len, off + 20, SIZE_MAX);
	const uint8_t *ip = frame + off;
	unsigned ihl = ip[0] & 0x0f;
	assert_int_equal(ip[0] >> 4, 4);
	assert_in_range(ihl, 5, 15);
	assert_int_equal(ip[2] << 8 | ip[3], len - off);
	assert_int_equal(ip[10] << 8 | ip[11], vec_ipv4_csum(ip, ihl));
	if (ip[9] == 17) {
		const uint8_t *udp = ip + 4 * ihl;
		assert_int_equal(udp[4] << 8 | udp[5], len - off - 4 * ihl);
	}
}

void vec_v4mapped(uint8_t out[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	out[12] = a;
	out[13] = b;
	out[14] = c;
	out[15] = d;
}

void vec_assert_report_fields(const struct hw_record *r, uint32_t report_node, uint8_t hw_id, uint32_t report_seq,
                              uint8_t report_flags, uint8_t format, uint8_t path_len)
{
	assert_int_equal(r->time_ns, VEC_TIME_NS);
	assert_int_equal(r->report_node, report_node);
	assert_int_equal(r->hw_id, hw_id);
	assert_int_equal(r->report_seq, report_seq);
	assert_int_equal(r->report_flags, report_flags);
	assert_int_equal(r->format, format);
	assert_int_equal(r->path_len, path_len);
}

void vec_assert_flow(const struct hw_record *r, const uint8_t src_ip[16], const uint8_t dst_ip[16], uint8_t ip_proto,
                     uint16_t src_port, uint16_t dst_port)
{
	assert_true(r->valid & HW_V_FLOW);
	assert_memory_equal(r->src_ip, src_ip, 16);
	assert_memory_equal(r->dst_ip, dst_ip, 16);
	assert_int_equal(r->ip_proto, ip_proto);
	assert_int_equal(r->src_port, src_port);
	assert_int_equal(r->dst_port, dst_port);
	assert_int_equal(r->flow_hash, hw_flow_hash(src_ip, dst_ip, ip_proto, src_port, dst_port));
}

void vec_assert_flow4(const struct hw_record *r, const uint8_t src[4], const uint8_t dst[4], uint8_t ip_proto,
                      uint16_t src_port, uint16_t dst_port)
{
	uint8_t s[16], d[16];
	vec_v4mapped(s, src[0], src[1], src[2], src[3]);
	vec_v4mapped(d, dst[0], dst[1], dst[2], dst[3]);
	vec_assert_flow(r, s, d, ip_proto, src_port, dst_port);
}

void vec_assert_tclass(const struct hw_record *r, uint8_t dscp, uint8_t ecn)
{
	assert_true(r->valid & HW_V_TCLASS);
	assert_int_equal(r->dscp, dscp);
	assert_int_equal(r->ecn, ecn);
}

void vec_assert_rejected(enum hw_result got, enum hw_result want, const struct vec_out *v, size_t len)
{
	assert_string_equal(hw_result_name(got), hw_result_name(want));
	assert_int_equal(got, want);
	assert_int_equal(v->out.n_recs, 0);
	assert_int_equal(v->out.n_reps, 0);
	assert_in_range(v->out.err_offset, 0, len);
}
