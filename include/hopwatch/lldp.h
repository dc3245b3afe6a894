/* The LLDP parser: one Ethernet frame (or a bare LLDPDU) in, one decoded advertisement out.
 * Pure C over a byte span: no allocation, no globals; every read goes through one bounds check. */
#ifndef HOPWATCH_LLDP_H
#define HOPWATCH_LLDP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HW_LLDP_ETHERTYPE 0x88cc

/* Outcome of parsing one frame.  HW_LLDP_OK and HW_LLDP_NOT_LLDP are not errors; every other
 * value names one reason the frame was rejected.  X(enum, name, message). */
#define HW_LLDP_RESULT_LIST(X)                                                                                         \
	X(HW_LLDP_OK, "ok", "parsed")                                                                                  \
	X(HW_LLDP_NOT_LLDP, "not_lldp", "not an LLDP frame (ethertype or destination address)")                        \
	X(HW_LLDP_E_L2_TRUNCATED, "l2_truncated", "frame ends inside its Ethernet or VLAN header")                     \
	X(HW_LLDP_E_TLV_TRUNCATED, "tlv_truncated", "LLDPDU ends inside a TLV header")                                 \
	X(HW_LLDP_E_TLV_LENGTH, "tlv_length", "a TLV's length runs past the end of the LLDPDU")                        \
	X(HW_LLDP_E_NO_END, "no_end", "LLDPDU has no End Of LLDPDU TLV")                                               \
	X(HW_LLDP_E_END_LENGTH, "end_length", "End Of LLDPDU TLV has a non-zero length")                               \
	X(HW_LLDP_E_ORDER, "order", "first three TLVs are not Chassis ID, Port ID, TTL")                               \
	X(HW_LLDP_E_DUPLICATE, "duplicate", "a TLV that may appear once appears twice")                                \
	X(HW_LLDP_E_CHASSIS_ID, "chassis_id", "bad Chassis ID TLV (length or address for its subtype)")                \
	X(HW_LLDP_E_CHASSIS_SUBTYPE, "chassis_subtype", "reserved Chassis ID subtype")                                 \
	X(HW_LLDP_E_PORT_ID, "port_id", "bad Port ID TLV (length or address for its subtype)")                         \
	X(HW_LLDP_E_PORT_SUBTYPE, "port_subtype", "reserved Port ID subtype")                                          \
	X(HW_LLDP_E_TTL, "ttl", "TTL TLV is not 2 bytes long")                                                         \
	X(HW_LLDP_E_CAPABILITIES, "capabilities", "System Capabilities TLV is not 4 bytes long")                       \
	X(HW_LLDP_E_MGMT_ADDR, "mgmt_addr", "bad Management Address TLV (lengths disagree)")                           \
	X(HW_LLDP_E_ORG, "org", "organizationally specific TLV shorter than its OUI and subtype")                      \
	X(HW_LLDP_E_PORT_VLAN, "port_vlan", "IEEE 802.1 Port VLAN ID TLV has the wrong length")                        \
	X(HW_LLDP_E_LINK_AGG, "link_agg", "link aggregation TLV (802.1 or 802.3) has the wrong length")                \
	X(HW_LLDP_E_PFC, "pfc", "IEEE 802.1 DCBX PFC configuration TLV has the wrong length")                          \
	X(HW_LLDP_E_MAX_FRAME, "max_frame", "IEEE 802.3 Maximum Frame Size TLV has the wrong length")

enum hw_lldp_result {
#define HW_LLDP_X_ENUM(e, n, m) e,
	HW_LLDP_RESULT_LIST(HW_LLDP_X_ENUM)
#undef HW_LLDP_X_ENUM
	    HW_LLDP_RESULT_COUNT
};

const char *hw_lldp_result_name(enum hw_lldp_result r);    /* stable snake_case name */
const char *hw_lldp_result_message(enum hw_lldp_result r); /* one-line explanation */

/* TLV types (IEEE 802.1AB-2016 table 8-1). */
enum {
	HW_LLDP_TLV_END = 0,
	HW_LLDP_TLV_CHASSIS_ID = 1,
	HW_LLDP_TLV_PORT_ID = 2,
	HW_LLDP_TLV_TTL = 3,
	HW_LLDP_TLV_PORT_DESCR = 4,
	HW_LLDP_TLV_SYS_NAME = 5,
	HW_LLDP_TLV_SYS_DESCR = 6,
	HW_LLDP_TLV_CAPABILITIES = 7,
	HW_LLDP_TLV_MGMT_ADDR = 8,
	HW_LLDP_TLV_ORG = 127,
};

/* Chassis ID subtypes (table 8-2). */
enum {
	HW_LLDP_CHASSIS_COMPONENT = 1,
	HW_LLDP_CHASSIS_IFALIAS = 2,
	HW_LLDP_CHASSIS_PORT_COMPONENT = 3,
	HW_LLDP_CHASSIS_MAC = 4,
	HW_LLDP_CHASSIS_NETADDR = 5,
	HW_LLDP_CHASSIS_IFNAME = 6,
	HW_LLDP_CHASSIS_LOCAL = 7,
};

/* Port ID subtypes (table 8-3). */
enum {
	HW_LLDP_PORT_IFALIAS = 1,
	HW_LLDP_PORT_COMPONENT = 2,
	HW_LLDP_PORT_MAC = 3,
	HW_LLDP_PORT_NETADDR = 4,
	HW_LLDP_PORT_IFNAME = 5,
	HW_LLDP_PORT_CIRCUIT = 6,
	HW_LLDP_PORT_LOCAL = 7,
};

/* System capability bits (table 8-4). */
enum {
	HW_LLDP_CAP_OTHER = 0x0001,
	HW_LLDP_CAP_REPEATER = 0x0002,
	HW_LLDP_CAP_BRIDGE = 0x0004,
	HW_LLDP_CAP_WLAN = 0x0008,
	HW_LLDP_CAP_ROUTER = 0x0010,
	HW_LLDP_CAP_TELEPHONE = 0x0020,
	HW_LLDP_CAP_DOCSIS = 0x0040,
	HW_LLDP_CAP_STATION = 0x0080,
	HW_LLDP_CAP_CVLAN = 0x0100,
	HW_LLDP_CAP_SVLAN = 0x0200,
	HW_LLDP_CAP_TPMR = 0x0400,
};

/* An identifier as carried on the wire (subtype + up to 255 bytes) and as text:
 * MAC subtypes as aa:bb:cc:dd:ee:ff, network addresses as dotted quad / RFC 5952,
 * printable strings as they are, anything else as hex bytes separated by ':'. */
#define HW_LLDP_ID_MAX 255
#define HW_LLDP_TEXT_MAX (3 * HW_LLDP_ID_MAX + 1)
struct hw_lldp_id {
	uint8_t subtype;
	uint8_t len;
	uint8_t raw[HW_LLDP_ID_MAX];
	char text[HW_LLDP_TEXT_MAX];
};

/* A management address (table 8-5 address family numbers: 1 IPv4, 2 IPv6). */
#define HW_LLDP_MGMT_MAX 4
struct hw_lldp_mgmt {
	uint8_t family; /* IANA address family: 1 IPv4, 2 IPv6, others kept raw */
	uint8_t len;    /* address bytes */
	uint8_t addr[31];
	uint8_t if_subtype; /* 1 unknown, 2 ifIndex, 3 system port number */
	uint32_t if_number;
	char text[96];
};

/* Presence bits for the optional parts of struct hw_lldp_info. */
enum {
	HW_LLDP_HAS_PORT_DESCR = 1u << 0,
	HW_LLDP_HAS_SYS_NAME = 1u << 1,
	HW_LLDP_HAS_SYS_DESCR = 1u << 2,
	HW_LLDP_HAS_CAPABILITIES = 1u << 3,
	HW_LLDP_HAS_MAX_FRAME = 1u << 4,
	HW_LLDP_HAS_LINK_AGG = 1u << 5,
	HW_LLDP_HAS_PORT_VLAN = 1u << 6,
	HW_LLDP_HAS_PFC = 1u << 7,
};

#define HW_LLDP_STR_MAX 256
/* One decoded LLDPDU.  Strings are NUL-terminated copies (non-printable bytes replaced by '?'). */
struct hw_lldp_info {
	uint8_t src_mac[6]; /* Ethernet source, zero for a bare LLDPDU */
	struct hw_lldp_id chassis;
	struct hw_lldp_id port;
	uint16_t ttl; /* seconds; 0 = the neighbour is leaving (shutdown LLDPDU) */
	uint32_t has; /* HW_LLDP_HAS_* */
	char port_descr[HW_LLDP_STR_MAX];
	char sys_name[HW_LLDP_STR_MAX];
	char sys_descr[HW_LLDP_STR_MAX];
	uint16_t cap_system, cap_enabled; /* HW_LLDP_CAP_* */
	uint8_t n_mgmt;                   /* addresses beyond HW_LLDP_MGMT_MAX are counted in mgmt_dropped */
	uint8_t mgmt_dropped;
	struct hw_lldp_mgmt mgmt[HW_LLDP_MGMT_MAX];
	uint16_t max_frame;    /* IEEE 802.3 maximum frame size, bytes */
	uint8_t agg_status;    /* bit 0 capable, bit 1 enabled (802.1AX adds port type in bits 2-3) */
	uint32_t agg_port_id;  /* aggregated port ifIndex, 0 when not aggregated */
	uint8_t agg_from;      /* which link aggregation TLVs came: bit 0 the 802.1 one, bit 1 the 802.3 one */
	uint16_t port_vlan;    /* IEEE 802.1 PVID, 0 = none */
	uint8_t pfc_willing;   /* DCBX PFC configuration (802.1Qaz D.2.9) */
	uint8_t pfc_mbc;       /* MACsec bypass capability */
	uint8_t pfc_cap;       /* number of traffic classes that may simultaneously have PFC enabled */
	uint8_t pfc_enable;    /* bit n set = priority n is lossless (PFC enabled) */
	uint16_t n_unknown;    /* TLVs skipped because they are not known (counted, not an error) */
	uint16_t n_tlv;        /* TLVs read, End included */
	uint16_t error_offset; /* on error: byte offset (within the LLDPDU) of the TLV at fault */
};

/* Parse an LLDPDU (the Ethernet payload after the ethertype).  Fills *out (always zeroed first). */
enum hw_lldp_result hw_lldp_parse_pdu(const uint8_t *pdu, size_t len, struct hw_lldp_info *out);

/* Parse an Ethernet II frame: destination must be one of the three LLDP multicast addresses
 * (01:80:c2:00:00:0e nearest bridge, :03 non-TPMR bridge, :00 customer bridge), ethertype 0x88cc,
 * optionally behind one or two 802.1Q/802.1ad tags. */
enum hw_lldp_result hw_lldp_parse_frame(const uint8_t *frame, size_t len, struct hw_lldp_info *out);

/* Text of an IANA-family address ("10.0.0.1", "2001:db8::1", or hex); buf >= 96 bytes. */
const char *hw_lldp_addr_text(uint8_t family, const uint8_t *addr, size_t len, char *buf, size_t size);

/* Name of a capability bit ("bridge", "router", ...), or NULL. */
const char *hw_lldp_cap_name(uint16_t bit);

/* Names of subtypes ("mac", "ifname", "local", ...) for JSON and docs; "reserved" when unknown. */
const char *hw_lldp_chassis_subtype_name(uint8_t subtype);
const char *hw_lldp_port_subtype_name(uint8_t subtype);

#ifdef __cplusplus
}
#endif
#endif
