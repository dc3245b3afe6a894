/* What hopwatch_v1model.p4 really sends, checked byte by byte: captures from three BMv2 switches
 * (tests/p4/data/README.md) against the report format in p4/README.md, and, when the wire parser is
 * built, against the collector's decoding.  Usage: test_p4_reports DATA_DIR */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "hopwatch/wire_layout.h"
#include "hopwatch/wire.h"

#define MAX_FRAMES 16
#define ETH_LEN 14
#define IP_LEN 20
#define UDP_LEN 8

/* The drop reasons the capture holds: 26 (TTL expired, the packet sent with TTL 1) and 29 (no route,
 * the one to 10.9.9.9). */
static const LargestIntegralType drop_reasons[] = {26, 29};

struct frame {
	uint8_t data[1600];
	size_t len;
};

struct capture {
	struct frame f[MAX_FRAMES];
	unsigned n;
};

static const char *data_dir;
static struct capture reports, link_pkts, h2_pkts, tcp_link, tcp_h2;

static int load(struct capture *c, const char *name)
{
	char path[1024], err[PCAP_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	pcap_t *p = pcap_open_offline(path, err);
	if (!p) {
		print_error("%s: %s\n", path, err);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *d;
	c->n = 0;
	while (pcap_next_ex(p, &h, &d) == 1 && c->n < MAX_FRAMES) {
		if (h->caplen > sizeof(c->f[0].data))
			continue;
		memcpy(c->f[c->n].data, d, h->caplen);
		c->f[c->n].len = h->caplen;
		c->n++;
	}
	pcap_close(p);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	if (load(&reports, "bmv2_reports.pcap") || load(&link_pkts, "bmv2_s2_s3_link.pcap") ||
	    load(&h2_pkts, "bmv2_h2.pcap") || load(&tcp_link, "bmv2_tcp_s2_s3_link.pcap") ||
	    load(&tcp_h2, "bmv2_tcp_h2.pcap"))
		return -1;
	return 0;
}

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static unsigned ip_csum(const uint8_t *ip)
{
	uint32_t s = 0;
	for (int i = 0; i < IP_LEN; i += 2)
		s += be16(ip + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s; /* 0xffff when the header checksum is right */
}

/* Ethernet + IPv4 (no options) + UDP with consistent lengths; returns the UDP payload length. */
static size_t check_eth_ip_udp(const uint8_t *f, size_t len)
{
	assert_in_range(len, ETH_LEN + IP_LEN + UDP_LEN, SIZE_MAX);
	assert_int_equal(be16(f + 12), 0x0800);
	const uint8_t *ip = f + ETH_LEN;
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[9], 17);
	assert_int_equal(ip_csum(ip), 0xffff);
	assert_int_equal(be16(ip + 2), len - ETH_LEN);
	assert_int_equal(be16(ip + IP_LEN + 4), be16(ip + 2) - IP_LEN);
	return be16(ip + IP_LEN + 4) - UDP_LEN;
}

/* TCP checksum over the pseudo-header and the whole segment (INT included): 0xffff when right. */
static unsigned tcp_csum(const uint8_t *ip)
{
	unsigned seg = be16(ip + 2) - IP_LEN;
	uint32_t s = be16(ip + 12) + be16(ip + 14) + be16(ip + 16) + be16(ip + 18) + ip[9] + seg;
	const uint8_t *t = ip + IP_LEN;
	for (unsigned i = 0; i + 1 < seg; i += 2)
		s += be16(t + i);
	if (seg & 1)
		s += (uint32_t)t[seg - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* An INT v2.1 packet over UDP or TCP (DSCP 0x17, NPT 0) as this program builds it: bitmap
 * 0xFC00, hop ML 8, 8 hops allowed at the source.  ip points at the IPv4 header, len bytes are
 * available from there.  Checks the stack's node ids, newest first; returns the number of hops. */
static unsigned check_int_packet(const uint8_t *ip, size_t len, unsigned newest_node)
{
	assert_int_equal(ip[1] >> 2, 0x17);
	const uint8_t *shim;
	if (ip[9] == 17) {
		assert_int_equal(be16(ip + IP_LEN + 6), 0); /* UDP checksum: zero */
		shim = ip + IP_LEN + UDP_LEN;
	} else {
		assert_int_equal(ip[9], 6);
		assert_int_equal(ip[IP_LEN + 12] >> 4, 5); /* no TCP options */
		shim = ip + IP_LEN + 20;
	}
	const uint8_t *md = shim + HW_INT21_SHIM_BYTES;
	assert_in_range(len, (size_t)(md + HW_INT21_MD_BYTES - ip), SIZE_MAX);
	assert_int_equal(HW_FIELD(INT21_SHIM, int_type, shim), 1);
	assert_int_equal(HW_FIELD(INT21_SHIM, npt, shim), 0);
	assert_int_equal(HW_FIELD(INT21_SHIM, npt_field, shim), 0); /* original DSCP 0 */
	assert_int_equal(HW_FIELD(INT21_MD, ver, md), 2);
	assert_int_equal(HW_FIELD(INT21_MD, d, md) | HW_FIELD(INT21_MD, e, md) | HW_FIELD(INT21_MD, m, md), 0);
	assert_int_equal(HW_FIELD(INT21_MD, hop_ml, md), 8);
	assert_int_equal(HW_FIELD(INT21_MD, instruction_mask, md), 0xFC00);
	unsigned words = HW_FIELD(INT21_SHIM, len, shim) - 3;
	assert_int_equal(words % 8, 0);
	unsigned hops = words / 8;
	assert_int_equal(HW_FIELD(INT21_MD, remaining_hop_cnt, md), 8 - hops);
	const uint8_t *stack = md + HW_INT21_MD_BYTES;
	for (unsigned h = 0; h < hops; h++) {
		const uint8_t *w = stack + 32 * h;
		assert_in_range((size_t)(w + 32 - ip), 0, len);
		assert_int_equal(be32(w), newest_node - h);                 /* node id */
		assert_int_equal(be32(w + 4), 0x00010002);                  /* L1 ports 1 -> 2 */
		assert_int_equal(w[12], 0);                                 /* queue id */
		assert_int_equal(be32(w + 8), be64(w + 24) - be64(w + 16)); /* latency = eg - ig (us) */
	}
	return hops;
}

static void test_report_format(void **state)
{
	(void)state;
	unsigned next_seq[4] = {0, 0, 0, 0};
	unsigned n_int = 0, n_queue = 0, n_drop = 0;
	assert_int_equal(reports.n, 5);
	for (unsigned i = 0; i < reports.n; i++) {
		const uint8_t *f = reports.f[i].data;
		size_t len = reports.f[i].len;
		size_t payload = check_eth_ip_udp(f, len);
		const uint8_t *ip = f + ETH_LEN;
		assert_int_equal(be16(ip + 6) & 0x4000, 0x4000); /* DF */
		assert_int_equal(ip[8], 64);
		assert_int_equal(be16(ip + IP_LEN + 2), 32766);
		assert_int_equal(be16(ip + IP_LEN + 6), 0);

		const uint8_t *grp = ip + IP_LEN + UDP_LEN;
		const uint8_t *ind = grp + HW_TR2_GROUP_BYTES;
		const uint8_t *main_ = ind + HW_TR2_INDIV_BYTES;
		const uint8_t *md = main_ + HW_TR2_INT_MAIN_BYTES;
		assert_int_equal(HW_FIELD(TR2_GROUP, ver, grp), 2);
		assert_int_equal(HW_FIELD(TR2_GROUP, hw_id, grp), 0);
		unsigned node = HW_FIELD(TR2_GROUP, node_id, grp);
		assert_in_range(node, 1, 3);
		assert_int_equal(be32(ip + 12), 0x0a000000u | node); /* 10.0.0.<node> */
		assert_int_equal(HW_FIELD(TR2_GROUP, seq_no, grp), next_seq[node]++);

		/* One individual report filling the datagram. */
		assert_int_equal(HW_FIELD(TR2_INDIV, rep_type, ind), 1);
		assert_int_equal(HW_FIELD(TR2_INDIV, in_type, ind), 4); /* IPv4 */
		unsigned rep_len = HW_FIELD(TR2_INDIV, report_length, ind);
		unsigned md_len = HW_FIELD(TR2_INDIV, md_length, ind);
		assert_int_equal(HW_TR2_GROUP_BYTES + HW_TR2_INDIV_BYTES + 4 * rep_len, payload);
		/* I: 0 in these captures, all of them; they were taken before the program set I on a transit
		 * switch's queue report (int_report.p4 now does: node 2's report below would carry I = 1) */
		assert_int_equal(HW_FIELD(TR2_INDIV, i, ind), 0);
		assert_int_equal(HW_FIELD(TR2_INDIV, rsvd, ind), 0);
		assert_int_equal(HW_FIELD(TR2_INT_MAIN, ds_id, main_), 0);
		assert_int_equal(HW_FIELD(TR2_INT_MAIN, ds_md_bits, main_), 0);
		assert_int_equal(HW_FIELD(TR2_INT_MAIN, ds_md_status, main_), 0);
		unsigned bits = HW_FIELD(TR2_INT_MAIN, rep_md_bits, main_);
		unsigned d = HW_FIELD(TR2_INDIV, d, ind), q = HW_FIELD(TR2_INDIV, q, ind),
		         fl = HW_FIELD(TR2_INDIV, f, ind);

		const uint8_t *inner = md + 4 * md_len;
		size_t inner_len = 4 * (rep_len - 2 - md_len);
		assert_int_equal((size_t)(inner + inner_len - f), len);
		assert_int_equal(inner[0], 0x45);
		size_t want = be16(inner + 2);
		assert_int_equal(inner_len, (want < 512 ? want : 512) & ~(size_t)3);

		if (bits == 0x4801) { /* drop report */
			n_drop++;
			assert_int_equal(md_len, 4);
			assert_int_equal(d, 1);
			assert_int_equal(q, 0);
			assert_int_equal(node, 1);
			assert_int_equal(be32(md), 0x0001ffff); /* ingress 1, egress unknown */
			assert_int_equal(md[12], 0);            /* queue id */
			assert_in_set(md[13], drop_reasons, 2);
			assert_int_equal(be16(md + 14), 0);
			/* reason 26 (TTL) is the packet sent with TTL 1, 29 (no route) the one to 10.9.9.9 */
			if (md[13] == 26)
				assert_int_equal(inner[8], 1);
			else
				assert_int_equal(be32(inner + 16), 0x0a090909);
			continue;
		}
		assert_int_equal(bits, 0x7C00);
		assert_int_equal(md_len, 7);
		assert_int_equal(d, 0);
		assert_int_equal(fl, 1);
		assert_int_equal(be32(md), 0x00010002);
		assert_int_equal(md[8], 0);
		assert_int_equal(be32(md + 4), be64(md + 20) - be64(md + 12));
		if (node == 3) { /* sink: INT report; source and transit hops in the stack, its own in md */
			n_int++;
			assert_int_equal(q, 0);
			assert_int_equal(check_int_packet(inner, inner_len, 2), 2);
		} else { /* transit with a depth threshold of 0 and a quota of 1: one queue report */
			n_queue++;
			assert_int_equal(node, 2);
			assert_int_equal(q, 1);
			assert_int_equal(check_int_packet(inner, inner_len, 2), 2);
		}
	}
	assert_int_equal(n_int, 2);
	assert_int_equal(n_queue, 1);
	assert_int_equal(n_drop, 2);
}

/* On the s2 -> s3 link the data packets carry INT with the source's and the transit's hop. */
static void test_int_in_flight(void **state)
{
	(void)state;
	assert_int_equal(link_pkts.n, 2);
	for (unsigned i = 0; i < link_pkts.n; i++) {
		check_eth_ip_udp(link_pkts.f[i].data, link_pkts.f[i].len);
		assert_int_equal(check_int_packet(link_pkts.f[i].data + ETH_LEN, link_pkts.f[i].len - ETH_LEN, 2), 2);
	}
}

/* What reaches h2 has no INT left: DSCP restored, lengths back, the RoCEv2 BTH right after UDP. */
static void test_int_removed_at_sink(void **state)
{
	(void)state;
	assert_int_equal(h2_pkts.n, 2);
	for (unsigned i = 0; i < h2_pkts.n; i++) {
		const uint8_t *f = h2_pkts.f[i].data;
		size_t payload = check_eth_ip_udp(f, h2_pkts.f[i].len);
		const uint8_t *ip = f + ETH_LEN;
		assert_int_equal(ip[1], 0x02); /* DSCP 0, ECT(0) as sent */
		assert_int_equal(be16(ip + IP_LEN + 2), 4791);
		assert_int_equal(payload, 12 + 10); /* BTH + "payload-N." */
		assert_int_equal(ip[IP_LEN + UDP_LEN], 0x64);
		assert_memory_equal(ip + IP_LEN + UDP_LEN + 12, "payload-", 8);
	}
}

/* INT over TCP: the TCP checksum covers the INT headers in flight and is right again after the
 * sink removed them; the data reached h2 whole (checked when the capture was made). */
static void test_tcp(void **state)
{
	(void)state;
	unsigned with_int = 0, data_bytes = 0;
	assert_in_range(tcp_link.n, 4, UINT_MAX);
	for (unsigned i = 0; i < tcp_link.n; i++) {
		const uint8_t *ip = tcp_link.f[i].data + ETH_LEN;
		assert_int_equal(ip[9], 6);
		assert_int_equal(ip_csum(ip), 0xffff);
		assert_int_equal(tcp_csum(ip), 0xffff);
		if (ip[1] >> 2 == 0x17) {
			with_int++;
			assert_int_equal(check_int_packet(ip, tcp_link.f[i].len - ETH_LEN, 2), 2);
		} else {
			assert_in_range(ip[IP_LEN + 12] >> 4, 6, 15); /* not watched: TCP options (SYN) */
		}
	}
	assert_in_range(with_int, 3, UINT_MAX);
	for (unsigned i = 0; i < tcp_h2.n; i++) {
		const uint8_t *ip = tcp_h2.f[i].data + ETH_LEN;
		assert_int_equal(ip[9], 6);
		assert_int_equal(ip_csum(ip), 0xffff);
		assert_int_equal(tcp_csum(ip), 0xffff);
		if (be32(ip + 12) != 0x0a000101)
			continue; /* h2's own packets */
		assert_int_equal(ip[1] >> 2, 0);
		unsigned hl = 4u * (ip[IP_LEN + 12] >> 4);
		unsigned data = be16(ip + 2) - IP_LEN - hl;
		/* h1 sent bytes 0..255 repeated, then "end": the first data segment starts with 0, 1, 2 */
		if (data && !data_bytes)
			assert_int_equal(be32(ip + IP_LEN + hl), 0x00010203);
		data_bytes += data;
	}
	assert_int_equal(data_bytes, 2051);
}

static void test_collector_decodes(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	struct hw_record recs[16];
	struct hw_report reps[4];
	for (unsigned i = 0; i < reports.n; i++) {
		struct hw_parse_out out = {.recs = recs, .rec_cap = 16, .reps = reps, .rep_cap = 4};
		assert_int_equal(hw_parse_frame(&cfg, reports.f[i].data, reports.f[i].len, 0, &out), HW_OK);
		assert_int_equal(out.n_reps, 1);
		assert_int_equal(reps[0].format, HW_FORMAT_TR20);
		if (reps[0].flags & HW_RF_DROPPED) {
			assert_int_equal(out.n_recs, 1);
			assert_int_equal(recs[0].node_id, 1);
			assert_in_set(recs[0].drop_reason, drop_reasons, 2);
			/* L1 ports 0x0001ffff: ingress 1, egress all ones = no egress chosen, not port 65535 */
			assert_int_equal(recs[0].valid & HW_V_PORTS, HW_V_PORTS);
			assert_int_equal(recs[0].ingress_port, 1);
			assert_int_equal(recs[0].egress_port, HW_PORT_NONE);
			continue;
		}
		/* The sink sees the whole path; the transit's queue report the path so far. */
		unsigned hops = reps[0].node == 3 ? 3 : 2;
		assert_int_equal(out.n_recs, hops);
		for (unsigned h = 0; h < hops; h++) {
			assert_int_equal(recs[h].hop_index, h);
			assert_int_equal(recs[h].node_id, h + 1);
			assert_int_equal(recs[h].ingress_port, 1);
			assert_int_equal(recs[h].egress_port, 2);
		}
	}
	for (unsigned i = 0; i < link_pkts.n; i++) {
		struct hw_parse_out out = {.recs = recs, .rec_cap = 16, .reps = reps, .rep_cap = 4};
		assert_int_equal(hw_parse_frame(&cfg, link_pkts.f[i].data, link_pkts.f[i].len, 0, &out), HW_OK);
		assert_int_equal(out.n_recs, 2);
	}
	for (unsigned i = 0; i < h2_pkts.n; i++) {
		struct hw_parse_out out = {.recs = recs, .rec_cap = 16, .reps = reps, .rep_cap = 4};
		assert_int_equal(hw_parse_frame(&cfg, h2_pkts.f[i].data, h2_pkts.f[i].len, 0, &out), HW_NOT_REPORT);
	}
	for (unsigned i = 0; i < tcp_link.n; i++) {
		struct hw_parse_out out = {.recs = recs, .rec_cap = 16, .reps = reps, .rep_cap = 4};
		const uint8_t *ip = tcp_link.f[i].data + ETH_LEN;
		enum hw_result r = hw_parse_frame(&cfg, tcp_link.f[i].data, tcp_link.f[i].len, 0, &out);
		assert_int_equal(r, ip[1] >> 2 == 0x17 ? HW_OK : HW_NOT_REPORT);
		if (r == HW_OK)
			assert_int_equal(out.n_recs, 2);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
		return 2;
	}
	data_dir = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_format),       cmocka_unit_test(test_int_in_flight),
	    cmocka_unit_test(test_int_removed_at_sink), cmocka_unit_test(test_tcp),
	    cmocka_unit_test(test_collector_decodes),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
