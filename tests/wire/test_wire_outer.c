/* Outer encapsulations in front of a telemetry report, and frames that are not reports.
 *
 * One small TR v2.0 report (24 B of UDP payload, one record) is carried behind:
 *   outer_vlan          802.1Q tag (TPID 0x8100, VID 100)
 *   outer_qinq          802.1ad + 802.1Q (TPID 0x88a8 then 0x8100)
 *   outer_ipv4_options  IPv4 IHL 6 with a Router Alert option (RFC 2113)
 *   outer_ipv6          plain IPv6
 *   outer_ipv6_ext      IPv6 with Hop-by-Hop, Routing and Destination Options extension headers
 *   outer_second_port   a second configured report port (cfg.report_ports[1])
 *   outer_mpls          one MPLS label, then two (RFC 3032 label stack entries, S on the last),
 *                       IPv4 found by its version nibble; a pseudowire control word is not IP
 * and the same record must come out each time.  not_report_*: wrong UDP destination port (also
 * when the source port is the report port), ARP, VLAN-tagged ARP, ICMP, IPv6 TCP without INT ->
 * HW_NOT_REPORT with no records.
 * Layouts: IEEE 802.1Q/802.1ad, RFC 791 (IPv4, IHL in words), RFC 8200 (IPv6; extension header
 * length in 8-octet units not counting the first 8), RFC 768 (UDP length = header + data).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/record.h"
#include "hopwatch/wire.h"
#include "vec_util.h"

/* The report: 8 + 4 + 8 + 4 = 24 B. */
/* clang-format off */
#define TR2_SMALL                                                                                                \
	0x20, 0x00, 0x00, 0x2a,		/* TR v2.0 group: ver 2 | hw_id 0 | seq 42 */                        \
		0x00, 0x00, 0x00, 0x63, /* node id 99 */                                                     \
		0x10, 0x03, 0x01, 0x00, /* rep_type 1 | in_type 0; report_length 3; md_length 1; flags 0 */  \
		0x20, 0x00,		/* RepMdBits 0x2000 hop latency */                                   \
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DSMdBits, DSMdStatus */                        \
		0x00, 0x00, 0x00, 0x0d		    /* hop latency 13 */
/* clang-format on */

static const uint8_t tr2_small[] = {TR2_SMALL};

static void expect_small_report(const struct hw_parser_config *cfg, const uint8_t *frame, size_t len)
{
	struct vec_out v;
	vec_check_frame(frame, len);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(cfg, frame, len, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 1);
	assert_int_equal(v.reps[0].node, 99);
	assert_int_equal(v.reps[0].seq, 42);
	const struct hw_record *r = &v.recs[0];
	vec_assert_report_fields(r, 99, 0, 42, HW_RF_POSTCARD, HW_FORMAT_TR20, 1);
	assert_int_equal(r->hop_index, 0);
	assert_int_equal(r->node_id, 99);
	assert_int_equal(r->int_version, HW_INT_NONE);
	assert_int_equal(r->valid, HW_V_HOP_LATENCY);
	assert_int_equal(r->hop_latency, 13);
}

static void expect_not_report(const struct hw_parser_config *cfg, const uint8_t *frame, size_t len)
{
	struct vec_out v;
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(cfg, frame, len, VEC_TIME_NS, &v.out), HW_NOT_REPORT);
	assert_int_equal(v.out.n_recs, 0);
	assert_int_equal(v.out.n_reps, 0);
}

/* 802.1Q.  Lengths by hand: UDP length = 8 + 24 = 32 (0x20); IPv4 total length = 20 + 32 = 52
 * (0x34); frame = 14 + 4 (tag) + 52 = 70 B. */
/* clang-format off */
static const uint8_t vlan_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x81, 0x00,			    /* TPID 0x8100: 802.1Q tag */
	0x00, 0x64,			    /* PCP 0 | DEI 0 | VID 100 */
	0x08, 0x00,			    /* ethertype IPv4 */
	0x45, 0x00, 0x00, 0x34,		    /* IHL 5, TOS 0, total length 52 */
	0x00, 0x00, 0x40, 0x00,		    /* ID 0, DF */
	0x40, 0x11, 0x26, 0x55,		    /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x00, 0x01,		    /* src 10.0.0.1 */
	0x0a, 0x00, 0x00, 0x64,		    /* dst 10.0.0.100 */
	0x00, 0x00, 0x7f, 0xfe,		    /* UDP src port 0, dst port 32766 */
	0x00, 0x20, 0x00, 0x00,		    /* UDP length 32, checksum 0 */
	TR2_SMALL,
};
/* clang-format on */

static void outer_vlan(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	assert_int_equal(sizeof(vlan_frame), 70);
	expect_small_report(&cfg, vlan_frame, sizeof(vlan_frame));
}

/* MPLS (ethertype 0x8847) in place of vlan_frame's tag: 12 B of MACs, the ethertype, one label stack
 * entry label:20 TC:3 S:1 TTL:8 = 16 | 0 | 1 | 64 -> 00 01 01 40, then IPv4: 12 + 2 + 4 + 52 = 70 B.
 * Two entries: 16 with S 0 (00 01 00 40), then 17 with S 1 (00 01 11 40): 74 B.  A first nibble of 0
 * below the stack is a pseudowire control word (RFC 4385), not IP: not a report. */
static void outer_mpls(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	uint8_t frame[sizeof(vlan_frame) + 4];
	static const uint8_t one[6] = {0x88, 0x47, 0x00, 0x01, 0x01, 0x40};
	static const uint8_t two[10] = {0x88, 0x47, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x11, 0x40};
	hw_parser_config_default(&cfg);

	memcpy(frame, vlan_frame, sizeof(vlan_frame));
	memcpy(frame + 12, one, sizeof(one));
	expect_small_report(&cfg, frame, sizeof(vlan_frame));

	memcpy(frame, vlan_frame, 12);
	memcpy(frame + 12, two, sizeof(two));
	memcpy(frame + 22, vlan_frame + 18, sizeof(vlan_frame) - 18);
	expect_small_report(&cfg, frame, sizeof(frame));

	frame[22] = 0x05; /* the IPv4 header's first byte 0x45 becomes a control word's 0x05 */
	expect_not_report(&cfg, frame, sizeof(frame));
}

/* QinQ: frame = 14 + 4 + 4 + 52 = 74 B; IP and UDP lengths as above. */
/* clang-format off */
static const uint8_t qinq_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x88, 0xa8,			    /* TPID 0x88a8: 802.1ad service tag */
	0x00, 0x0a,			    /* S-VID 10 */
	0x81, 0x00,			    /* TPID 0x8100: customer tag */
	0x20, 0x64,			    /* PCP 1 | C-VID 100 */
	0x08, 0x00,			    /* ethertype IPv4 */
	0x45, 0x00, 0x00, 0x34,		    /* IHL 5, TOS 0, total length 52 */
	0x00, 0x00, 0x40, 0x00,		    /* ID 0, DF */
	0x40, 0x11, 0x26, 0x55,		    /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x00, 0x01,		    /* src 10.0.0.1 */
	0x0a, 0x00, 0x00, 0x64,		    /* dst 10.0.0.100 */
	0x00, 0x00, 0x7f, 0xfe,		    /* UDP src port 0, dst port 32766 */
	0x00, 0x20, 0x00, 0x00,		    /* UDP length 32, checksum 0 */
	TR2_SMALL,
};
/* clang-format on */

static void outer_qinq(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	assert_int_equal(sizeof(qinq_frame), 74);
	expect_small_report(&cfg, qinq_frame, sizeof(qinq_frame));
}

/* IPv4 with options: IHL 6 (24 B header); total length = 24 + 32 = 56 (0x38); frame 70 B. */
/* clang-format off */
static const uint8_t ipv4opt_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x08, 0x00,			    /* IPv4 */
	0x46, 0x00, 0x00, 0x38,		    /* version 4, IHL 6; TOS 0; total length 56 */
	0x00, 0x00, 0x40, 0x00,		    /* ID 0, DF */
	0x40, 0x11, 0x91, 0x4c,		    /* TTL 64, UDP, checksum (over all 24 B) */
	0x0a, 0x00, 0x00, 0x01,		    /* src 10.0.0.1 */
	0x0a, 0x00, 0x00, 0x64,		    /* dst 10.0.0.100 */
	0x94, 0x04, 0x00, 0x00,		    /* option: Router Alert (type 148, length 4, value 0) */
	0x00, 0x00, 0x7f, 0xfe,		    /* UDP src port 0, dst port 32766 (at byte 24, not 20) */
	0x00, 0x20, 0x00, 0x00,		    /* UDP length 32, checksum 0 */
	TR2_SMALL,
};
/* clang-format on */

static void outer_ipv4_options(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	vec_check_frame(ipv4opt_frame, sizeof(ipv4opt_frame));
	expect_small_report(&cfg, ipv4opt_frame, sizeof(ipv4opt_frame));
}

/* IPv6: payload length = UDP 32 (0x20); frame = 14 + 40 + 32 = 86 B. */
/* clang-format off */
static const uint8_t ipv6_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x86, 0xdd,			    /* IPv6 */
	0x60, 0x00, 0x00, 0x00,		    /* version 6, traffic class 0, flow label 0 */
	0x00, 0x20,			    /* payload length 32 */
	0x11,				    /* next header 17 UDP */
	0x40,				    /* hop limit 64 */
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, /* src 2001:db8::a */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, /* dst 2001:db8::64 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64,
	0x00, 0x00, 0x7f, 0xfe, /* UDP src port 0, dst port 32766 */
	0x00, 0x20, 0x00, 0x00, /* UDP length 32, checksum 0 (test vector; not verified) */
	TR2_SMALL,
};
/* clang-format on */

static void outer_ipv6(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	assert_int_equal(sizeof(ipv6_frame), 86);
	expect_small_report(&cfg, ipv6_frame, sizeof(ipv6_frame));
}

/* IPv6 + Hop-by-Hop (8 B) + Routing (8 B) + Destination Options (8 B) + UDP 32:
 * payload length = 24 + 32 = 56 (0x38); frame = 14 + 40 + 56 = 110 B. */
/* clang-format off */
static const uint8_t ipv6ext_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x86, 0xdd,			    /* IPv6 */
	0x60, 0x00, 0x00, 0x00,		    /* version 6, traffic class 0, flow label 0 */
	0x00, 0x38,			    /* payload length 56 */
	0x00,				    /* next header 0: Hop-by-Hop Options */
	0x40,				    /* hop limit 64 */
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, /* src 2001:db8::a */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, /* dst 2001:db8::64 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64,
	0x2b, 0x00,			    /* HBH: next header 43 (Routing), hdr ext len 0 (= 8 B) */
	0x01, 0x04, 0x00, 0x00, 0x00, 0x00, /*      PadN, 4 bytes of padding */
	0x3c, 0x00,			    /* Routing: next header 60 (Dest Options), hdr ext len 0 */
	0xfd, 0x00,			    /*          routing type 253 (experimental), segments left 0 */
	0x00, 0x00, 0x00, 0x00,		    /*          type-specific data */
	0x11, 0x00,			    /* Dest Options: next header 17 (UDP), hdr ext len 0 */
	0x01, 0x04, 0x00, 0x00, 0x00, 0x00, /*      PadN */
	0x00, 0x00, 0x7f, 0xfe,		    /* UDP src port 0, dst port 32766 */
	0x00, 0x20, 0x00, 0x00,		    /* UDP length 32, checksum 0 */
	TR2_SMALL,
};
/* clang-format on */

static void outer_ipv6_ext(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	assert_int_equal(sizeof(ipv6ext_frame), 110);
	expect_small_report(&cfg, ipv6ext_frame, sizeof(ipv6ext_frame));
}

static void outer_second_port(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	uint8_t frame[128];
	size_t n = vec_udp4_frame(frame, sizeof(frame), tr2_small, sizeof(tr2_small), 0, 9999, 0);
	hw_parser_config_default(&cfg);
	expect_not_report(&cfg, frame, n); /* 9999 is not a report port by default */
	cfg.report_ports[1] = 9999;
	cfg.n_report_ports = 2;
	expect_small_report(&cfg, frame, n);
}

static void not_report_wrong_port(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	uint8_t frame[128];
	hw_parser_config_default(&cfg);
	/* dst 32767 */
	size_t n = vec_udp4_frame(frame, sizeof(frame), tr2_small, sizeof(tr2_small), 0, 32767, 0);
	expect_not_report(&cfg, frame, n);
	/* src port 32766, dst 40000: only the destination port selects a report */
	n = vec_udp4_frame(frame, sizeof(frame), tr2_small, sizeof(tr2_small), 32766, 40000, 0);
	expect_not_report(&cfg, frame, n);
	/* the VLAN vector with the destination port changed to 32765 */
	memcpy(frame, vlan_frame, sizeof(vlan_frame));
	frame[40] = 0x7f, frame[41] = 0xfd;
	expect_not_report(&cfg, frame, sizeof(vlan_frame));
}

/* ARP request, 42 B. */
/* clang-format off */
static const uint8_t arp_frame[] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* dst MAC broadcast */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x08, 0x06,			    /* ethertype ARP */
	0x00, 0x01, 0x08, 0x00,		    /* htype Ethernet, ptype IPv4 */
	0x06, 0x04, 0x00, 0x01,		    /* hlen 6, plen 4, op request */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* sender MAC */
	0x0a, 0x00, 0x00, 0x01,		    /* sender IP */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* target MAC */
	0x0a, 0x00, 0x00, 0x64,		    /* target IP */
};
/* clang-format on */

/* VLAN-tagged ARP: the same behind a tag, 46 B. */
/* clang-format off */
static const uint8_t vlan_arp_frame[] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* MACs */
	0x81, 0x00, 0x00, 0x64,			     /* 802.1Q VID 100 */
	0x08, 0x06,				     /* ARP */
	0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, /* Ethernet/IPv4, request */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x01, /* sender */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x64, /* target */
};
/* clang-format on */

/* ICMP echo request: IPv4 total length 20 + 8 = 28 (0x1c); frame 42 B. */
/* clang-format off */
static const uint8_t icmp_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* MACs */
	0x08, 0x00,			/* IPv4 */
	0x45, 0x00, 0x00, 0x1c,		/* IHL 5, TOS 0, total length 28 */
	0x00, 0x00, 0x40, 0x00,		/* ID 0, DF */
	0x40, 0x01, 0x26, 0x7d,		/* TTL 64, protocol 1 ICMP, checksum */
	0x0a, 0x00, 0x00, 0x01,		/* src */
	0x0a, 0x00, 0x00, 0x64,		/* dst */
	0x08, 0x00, 0xf7, 0xfe,		/* echo request, checksum */
	0x00, 0x01, 0x00, 0x00,		/* id 1, seq 0 */
};
/* clang-format on */

/* IPv6 TCP SYN, traffic class 0 (no INT DSCP): payload length 20; frame 74 B. */
/* clang-format off */
static const uint8_t ipv6_tcp_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* MACs */
	0x86, 0xdd,			/* IPv6 */
	0x60, 0x00, 0x00, 0x00,		/* version 6, TC 0 */
	0x00, 0x14, 0x06, 0x40,		/* payload length 20, TCP, hop limit 64 */
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, /* src */
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x64, /* dst */
	0x9c, 0x40, 0x7f, 0xfe,		/* TCP src port 40000, dst port 32766 (TCP: not a report) */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, ack */
	0x50, 0x02, 0x72, 0x10,		/* data offset 5, SYN, window */
	0x00, 0x00, 0x00, 0x00,		/* checksum, urgent */
};
/* clang-format on */

static void not_report_other_protocols(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	vec_check_frame(icmp_frame, sizeof(icmp_frame));
	vec_check_frame(ipv6_tcp_frame, sizeof(ipv6_tcp_frame));
	expect_not_report(&cfg, arp_frame, sizeof(arp_frame));
	expect_not_report(&cfg, vlan_arp_frame, sizeof(vlan_arp_frame));
	expect_not_report(&cfg, icmp_frame, sizeof(icmp_frame));
	expect_not_report(&cfg, ipv6_tcp_frame, sizeof(ipv6_tcp_frame));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(outer_vlan),
	    cmocka_unit_test(outer_mpls),
	    cmocka_unit_test(outer_qinq),
	    cmocka_unit_test(outer_ipv4_options),
	    cmocka_unit_test(outer_ipv6),
	    cmocka_unit_test(outer_ipv6_ext),
	    cmocka_unit_test(outer_second_port),
	    cmocka_unit_test(not_report_wrong_port),
	    cmocka_unit_test(not_report_other_protocols),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
