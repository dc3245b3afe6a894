/* Bit layouts of the fixed wire headers, one X-macro list per header: X(field, bit_offset, bit_width).
 * The parser reads fields through these lists, and a test checks them against the P4 header types. */
#ifndef HOPWATCH_WIRE_LAYOUT_H
#define HOPWATCH_WIRE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Telemetry Report v2.0 group header, 8 bytes. */
#define HW_LAYOUT_TR2_GROUP(X)                                                                                         \
	X(ver, 0, 4)                                                                                                   \
	X(hw_id, 4, 6)                                                                                                 \
	X(seq_no, 10, 22)                                                                                              \
	X(node_id, 32, 32)
#define HW_TR2_GROUP_BYTES 8

/* Telemetry Report v2.0 individual report header, 4 bytes. */
#define HW_LAYOUT_TR2_INDIV(X)                                                                                         \
	X(rep_type, 0, 4)                                                                                              \
	X(in_type, 4, 4)                                                                                               \
	X(report_length, 8, 8)                                                                                         \
	X(md_length, 16, 8)                                                                                            \
	X(d, 24, 1)                                                                                                    \
	X(q, 25, 1)                                                                                                    \
	X(f, 26, 1)                                                                                                    \
	X(i, 27, 1)                                                                                                    \
	X(rsvd, 28, 4)
#define HW_TR2_INDIV_BYTES 4

/* Telemetry Report v2.0 INT main contents, fixed part, 8 bytes. */
#define HW_LAYOUT_TR2_INT_MAIN(X)                                                                                      \
	X(rep_md_bits, 0, 16)                                                                                          \
	X(ds_id, 16, 16)                                                                                               \
	X(ds_md_bits, 32, 16)                                                                                          \
	X(ds_md_status, 48, 16)
#define HW_TR2_INT_MAIN_BYTES 8

/* Telemetry Report v1.0 header, 16 bytes (optional metadata follows). */
#define HW_LAYOUT_TR1_HDR(X)                                                                                           \
	X(ver, 0, 4)                                                                                                   \
	X(len, 4, 4)                                                                                                   \
	X(nproto, 8, 3)                                                                                                \
	X(rep_md_bits, 11, 6)                                                                                          \
	X(rsvd, 17, 6)                                                                                                 \
	X(d, 23, 1)                                                                                                    \
	X(q, 24, 1)                                                                                                    \
	X(f, 25, 1)                                                                                                    \
	X(hw_id, 26, 6)                                                                                                \
	X(switch_id, 32, 32)                                                                                           \
	X(seq_no, 64, 32)                                                                                              \
	X(ingress_tstamp, 96, 32)
#define HW_TR1_HDR_BYTES 16

/* Telemetry Report v0.5 fixed header (fabric-tna report_fixed_header_t), 12 bytes. */
#define HW_LAYOUT_TR05_FIXED(X)                                                                                        \
	X(ver, 0, 4)                                                                                                   \
	X(nproto, 4, 4)                                                                                                \
	X(d, 8, 1)                                                                                                     \
	X(q, 9, 1)                                                                                                     \
	X(f, 10, 1)                                                                                                    \
	X(rsvd, 11, 15)                                                                                                \
	X(hw_id, 26, 6)                                                                                                \
	X(seq_no, 32, 32)                                                                                              \
	X(ig_tstamp, 64, 32)
#define HW_TR05_FIXED_BYTES 12

/* Telemetry Report v0.5 switch-local header (fabric-tna local_report_header_t), 16 bytes. */
#define HW_LAYOUT_TR05_LOCAL(X)                                                                                        \
	X(switch_id, 0, 32)                                                                                            \
	X(ig_port, 32, 16)                                                                                             \
	X(eg_port, 48, 16)                                                                                             \
	X(queue_id, 64, 8)                                                                                             \
	X(queue_occupancy, 72, 24)                                                                                     \
	X(eg_tstamp, 96, 32)
#define HW_TR05_LOCAL_BYTES 16

/* Telemetry Report v0.5 drop header (fabric-tna drop_report_header_t), 12 bytes. */
#define HW_LAYOUT_TR05_DROP(X)                                                                                         \
	X(switch_id, 0, 32)                                                                                            \
	X(ig_port, 32, 16)                                                                                             \
	X(eg_port, 48, 16)                                                                                             \
	X(queue_id, 64, 8)                                                                                             \
	X(drop_reason, 72, 8)                                                                                          \
	X(pad, 80, 16)
#define HW_TR05_DROP_BYTES 12

/* INT v2.1 shim header for TCP/UDP, 4 bytes. */
#define HW_LAYOUT_INT21_SHIM(X)                                                                                        \
	X(int_type, 0, 4)                                                                                              \
	X(npt, 4, 2)                                                                                                   \
	X(rsvd, 6, 2)                                                                                                  \
	X(len, 8, 8)                                                                                                   \
	X(npt_field, 16, 16)
#define HW_INT21_SHIM_BYTES 4

/* INT v2.1 metadata header, 12 bytes. */
#define HW_LAYOUT_INT21_MD(X)                                                                                          \
	X(ver, 0, 4)                                                                                                   \
	X(d, 4, 1)                                                                                                     \
	X(e, 5, 1)                                                                                                     \
	X(m, 6, 1)                                                                                                     \
	X(rsvd, 7, 12)                                                                                                 \
	X(hop_ml, 19, 5)                                                                                               \
	X(remaining_hop_cnt, 24, 8)                                                                                    \
	X(instruction_mask, 32, 16)                                                                                    \
	X(ds_id, 48, 16)                                                                                               \
	X(ds_instruction, 64, 16)                                                                                      \
	X(ds_flags, 80, 16)
#define HW_INT21_MD_BYTES 12

/* INT v1.0 shim header for TCP/UDP, 4 bytes (length counts the shim). */
#define HW_LAYOUT_INT10_SHIM(X)                                                                                        \
	X(int_type, 0, 8)                                                                                              \
	X(rsvd1, 8, 8)                                                                                                 \
	X(len, 16, 8)                                                                                                  \
	X(dscp, 24, 6)                                                                                                 \
	X(rsvd2, 30, 2)
#define HW_INT10_SHIM_BYTES 4

/* INT v1.0 metadata header, 8 bytes. */
#define HW_LAYOUT_INT10_MD(X)                                                                                          \
	X(ver, 0, 4)                                                                                                   \
	X(rep, 4, 2)                                                                                                   \
	X(c, 6, 1)                                                                                                     \
	X(e, 7, 1)                                                                                                     \
	X(m, 8, 1)                                                                                                     \
	X(rsvd1, 9, 10)                                                                                                \
	X(hop_ml, 19, 5)                                                                                               \
	X(remaining_hop_cnt, 24, 8)                                                                                    \
	X(instruction_mask, 32, 16)                                                                                    \
	X(rsvd2, 48, 16)
#define HW_INT10_MD_BYTES 8

/* INT v0.5 shim header for TCP/UDP, 4 bytes (length counts the shim and the 4 B tail). */
#define HW_LAYOUT_INT05_SHIM(X)                                                                                        \
	X(int_type, 0, 8)                                                                                              \
	X(rsvd1, 8, 8)                                                                                                 \
	X(len, 16, 8)                                                                                                  \
	X(rsvd2, 24, 8)
#define HW_INT05_SHIM_BYTES 4

/* INT v0.5 metadata header, 8 bytes. */
#define HW_LAYOUT_INT05_MD(X)                                                                                          \
	X(ver, 0, 4)                                                                                                   \
	X(rep, 4, 2)                                                                                                   \
	X(c, 6, 1)                                                                                                     \
	X(e, 7, 1)                                                                                                     \
	X(rsvd1, 8, 3)                                                                                                 \
	X(ins_cnt, 11, 5)                                                                                              \
	X(max_hop_cnt, 16, 8)                                                                                          \
	X(total_hop_cnt, 24, 8)                                                                                        \
	X(instruction_mask, 32, 16)                                                                                    \
	X(rsvd2, 48, 16)
#define HW_INT05_MD_BYTES 8

/* INT v0.5 tail header, 4 bytes. */
#define HW_LAYOUT_INT05_TAIL(X)                                                                                        \
	X(next_proto, 0, 8)                                                                                            \
	X(dest_port, 8, 16)                                                                                            \
	X(dscp, 24, 8)
#define HW_INT05_TAIL_BYTES 4

/* All headers above, for tests and tools: X(name, LIST, bytes). */
#define HW_LAYOUT_HEADERS(X)                                                                                           \
	X(tr2_group, HW_LAYOUT_TR2_GROUP, HW_TR2_GROUP_BYTES)                                                          \
	X(tr2_indiv, HW_LAYOUT_TR2_INDIV, HW_TR2_INDIV_BYTES)                                                          \
	X(tr2_int_main, HW_LAYOUT_TR2_INT_MAIN, HW_TR2_INT_MAIN_BYTES)                                                 \
	X(tr1_hdr, HW_LAYOUT_TR1_HDR, HW_TR1_HDR_BYTES)                                                                \
	X(tr05_fixed, HW_LAYOUT_TR05_FIXED, HW_TR05_FIXED_BYTES)                                                       \
	X(tr05_local, HW_LAYOUT_TR05_LOCAL, HW_TR05_LOCAL_BYTES)                                                       \
	X(tr05_drop, HW_LAYOUT_TR05_DROP, HW_TR05_DROP_BYTES)                                                          \
	X(int21_shim, HW_LAYOUT_INT21_SHIM, HW_INT21_SHIM_BYTES)                                                       \
	X(int21_md, HW_LAYOUT_INT21_MD, HW_INT21_MD_BYTES)                                                             \
	X(int10_shim, HW_LAYOUT_INT10_SHIM, HW_INT10_SHIM_BYTES)                                                       \
	X(int10_md, HW_LAYOUT_INT10_MD, HW_INT10_MD_BYTES)                                                             \
	X(int05_shim, HW_LAYOUT_INT05_SHIM, HW_INT05_SHIM_BYTES)                                                       \
	X(int05_md, HW_LAYOUT_INT05_MD, HW_INT05_MD_BYTES)                                                             \
	X(int05_tail, HW_LAYOUT_INT05_TAIL, HW_INT05_TAIL_BYTES)

/* Read field F of header H (an X-list name without the HW_LAYOUT_ prefix) from a validated window.
 * Offsets and widths are compile-time constants, so this folds to a load, shift and mask. */
#define HW_FIELD(H, F, p) hw_bits_((p), HW_OFF_##H##_##F, HW_WID_##H##_##F)

/* Field descriptors for tests and tools. */
struct hw_layout_field {
	const char *name;
	uint16_t bit_offset;
	uint16_t bit_width;
};
struct hw_layout_header {
	const char *name;
	uint16_t bytes;
	uint16_t n_fields;
	const struct hw_layout_field *fields;
};
/* Every header of HW_LAYOUT_HEADERS, terminated by an entry with name NULL. */
extern const struct hw_layout_header hw_layout_headers[];

/* Big-endian bit-field extraction: width <= 32 bits, within the first 16 bytes of p. */
static inline __attribute__((always_inline)) uint32_t hw_bits_(const uint8_t *p, unsigned off, unsigned width)
{
	const uint8_t *b = p + off / 8;
	unsigned sh = off % 8;
	unsigned nbytes = (sh + width + 7) / 8;
	/* Spelled out per byte count (constant here) so the compiler merges the byte loads into one
	 * big-endian load; a loop over the bytes stays byte by byte. */
	uint64_t v;
	if (nbytes == 1)
		v = b[0];
	else if (nbytes == 2)
		v = (uint64_t)b[0] << 8 | b[1];
	else if (nbytes == 3)
		v = (uint64_t)b[0] << 16 | (uint64_t)b[1] << 8 | b[2];
	else if (nbytes == 4)
		v = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
	else
		v = (uint64_t)b[0] << 32 | (uint64_t)b[1] << 24 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 8 | b[4];
	v >>= nbytes * 8 - sh - width;
	return (uint32_t)(v & ((width == 32) ? 0xffffffffull : ((1ull << width) - 1)));
}

/* HW_OFF_<header>_<field> and HW_WID_<header>_<field> enum constants. */
#define HW_X_OFFWID(H, f, o, w) HW_OFF_##H##_##f = (o), HW_WID_##H##_##f = (w),
#define HW_X_TR2_GROUP(f, o, w) HW_X_OFFWID(TR2_GROUP, f, o, w)
#define HW_X_TR2_INDIV(f, o, w) HW_X_OFFWID(TR2_INDIV, f, o, w)
#define HW_X_TR2_INT_MAIN(f, o, w) HW_X_OFFWID(TR2_INT_MAIN, f, o, w)
#define HW_X_TR1_HDR(f, o, w) HW_X_OFFWID(TR1_HDR, f, o, w)
#define HW_X_TR05_FIXED(f, o, w) HW_X_OFFWID(TR05_FIXED, f, o, w)
#define HW_X_TR05_LOCAL(f, o, w) HW_X_OFFWID(TR05_LOCAL, f, o, w)
#define HW_X_TR05_DROP(f, o, w) HW_X_OFFWID(TR05_DROP, f, o, w)
#define HW_X_INT21_SHIM(f, o, w) HW_X_OFFWID(INT21_SHIM, f, o, w)
#define HW_X_INT21_MD(f, o, w) HW_X_OFFWID(INT21_MD, f, o, w)
#define HW_X_INT10_SHIM(f, o, w) HW_X_OFFWID(INT10_SHIM, f, o, w)
#define HW_X_INT10_MD(f, o, w) HW_X_OFFWID(INT10_MD, f, o, w)
#define HW_X_INT05_SHIM(f, o, w) HW_X_OFFWID(INT05_SHIM, f, o, w)
#define HW_X_INT05_MD(f, o, w) HW_X_OFFWID(INT05_MD, f, o, w)
#define HW_X_INT05_TAIL(f, o, w) HW_X_OFFWID(INT05_TAIL, f, o, w)
enum {
	HW_LAYOUT_TR2_GROUP(HW_X_TR2_GROUP) HW_LAYOUT_TR2_INDIV(HW_X_TR2_INDIV)
	    HW_LAYOUT_TR2_INT_MAIN(HW_X_TR2_INT_MAIN) HW_LAYOUT_TR1_HDR(HW_X_TR1_HDR)
	        HW_LAYOUT_TR05_FIXED(HW_X_TR05_FIXED) HW_LAYOUT_TR05_LOCAL(HW_X_TR05_LOCAL)
	            HW_LAYOUT_TR05_DROP(HW_X_TR05_DROP) HW_LAYOUT_INT21_SHIM(HW_X_INT21_SHIM)
	                HW_LAYOUT_INT21_MD(HW_X_INT21_MD) HW_LAYOUT_INT10_SHIM(HW_X_INT10_SHIM)
	                    HW_LAYOUT_INT10_MD(HW_X_INT10_MD) HW_LAYOUT_INT05_SHIM(HW_X_INT05_SHIM)
	                        HW_LAYOUT_INT05_MD(HW_X_INT05_MD) HW_LAYOUT_INT05_TAIL(HW_X_INT05_TAIL) HW_LAYOUT_END_
};

#endif
