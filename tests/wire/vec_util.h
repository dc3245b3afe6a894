/* Helpers shared by the tests/wire/ cmocka programs (hand-made wire vectors).
 *
 * - vec_out: output arrays for one parse, reset before every call.
 * - vec_udp4_frame(): wrap a UDP payload in Ethernet / IPv4 (IHL 5) / UDP; it computes the IPv4
 *   total length (20 + 8 + payload), the UDP length (8 + payload) and the IPv4 header checksum.
 *   Every test file writes its first vector out literally (lengths worked out by hand in the
 *   comments) and may use this helper for the others.
 * - vec_check_frame(): self-check of a hand-made Ethernet/IPv4 frame (total length, UDP length,
 *   header checksum) so that an arithmetic slip in a vector fails loudly instead of silently
 *   testing something else.
 * - vec_assert_*: field-by-field assertions shared by many vectors.
 */
#ifndef HOPWATCH_TESTS_VEC_UTIL_H
#define HOPWATCH_TESTS_VEC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "hopwatch/record.h"
#include "hopwatch/wire.h"

#define VEC_MAX_RECS 64
#define VEC_MAX_REPS 16

/* A capture time that is not 0, so a parser that forgets time_ns is caught. */
#define VEC_TIME_NS 1700000000123456789ull

struct vec_out {
	struct hw_record recs[VEC_MAX_RECS];
	struct hw_report reps[VEC_MAX_REPS];
	struct hw_parse_out out;
};

/* Reset the output (records poisoned with 0xA5 so unset fields show up) and point
 * out.recs/out.reps at the arrays with their full capacity. */
void vec_out_init(struct vec_out *v);

/* Ethernet (dst 02:00:00:00:00:02, src 02:00:00:00:00:01, type 0x0800) + IPv4 (IHL 5, TOS tos,
 * ID 0, DF, TTL 64, proto 17, 10.0.0.1 -> 10.0.0.100) + UDP (sport, dport, checksum 0) + payload.
 * Returns the frame length, 0 when cap is too small. */
size_t vec_udp4_frame(uint8_t *buf, size_t cap, const uint8_t *payload, size_t len, uint16_t sport, uint16_t dport,
                      uint8_t tos);

/* Ethernet (as above) + IPv4 (IHL 5, TOS tos, ID 0, DF, TTL 64, protocol proto, 10.0.0.1 ->
 * 10.0.0.100) + l4 (the L4 header and everything after it, verbatim).  Total length and header
 * checksum are computed.  Returns the frame length, 0 when cap is too small. */
size_t vec_ip4_frame(uint8_t *buf, size_t cap, uint8_t proto, const uint8_t *l4, size_t len, uint8_t tos);

/* Checks a hand-made frame (Ethernet, optional 802.1Q/802.1ad tags, then IPv4 or IPv6): IPv4 total
 * length = rest of the frame, header checksum valid, UDP length = IP total length - 4 * IHL;
 * IPv6 payload length = rest of the frame after the 40 B header. */
void vec_check_frame(const uint8_t *frame, size_t len);

/* The IPv4 header checksum of hdr (ihl_words * 4 bytes, checksum field included as stored). */
uint16_t vec_ipv4_csum(const uint8_t *hdr, unsigned ihl_words);

/* 16-byte IPv4-mapped address ::ffff:a.b.c.d */
void vec_v4mapped(uint8_t out[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d);

/* Common report fields carried by every record. */
void vec_assert_report_fields(const struct hw_record *r, uint32_t report_node, uint8_t hw_id, uint32_t report_seq,
                              uint8_t report_flags, uint8_t format, uint8_t path_len);

/* Inner flow fields: addresses, proto, ports, flow_hash = hw_flow_hash(...); checks HW_V_FLOW. */
void vec_assert_flow(const struct hw_record *r, const uint8_t src_ip[16], const uint8_t dst_ip[16], uint8_t ip_proto,
                     uint16_t src_port, uint16_t dst_port);
void vec_assert_flow4(const struct hw_record *r, const uint8_t src[4], const uint8_t dst[4], uint8_t ip_proto,
                      uint16_t src_port, uint16_t dst_port);

/* Inner traffic class; checks HW_V_TCLASS. */
void vec_assert_tclass(const struct hw_record *r, uint8_t dscp, uint8_t ecn);

/* The result was an error: counts are 0 and err_offset lies inside the input. */
void vec_assert_rejected(enum hw_result got, enum hw_result want, const struct vec_out *v, size_t len);

#endif
