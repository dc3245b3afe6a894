/* Per-hop metadata formats: which recorded field each bitmap bit selects in every INT and
 * report version, and how wide the fields are.  Decoding itself is inline in wire_internal.h. */
#include "wire_internal.h"

const struct hw_record hw_zero_record;

const struct hw_md_plan hw_md_plan_empty = {.off = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}};

#define NO (-1)
#define N MD_NODE
#define P1 MD_L1_PORTS
#define LAT MD_LATENCY
#define Q MD_QUEUE
#define IT MD_ING_TS
#define ET MD_EG_TS
#define P2 MD_L2_PORTS
#define TX MD_TX_UTIL
#define BUF MD_BUFFER
#define DROP MD_DROP

/* INT v2.0/v2.1 instruction bitmap: bits 4-6 (timestamps, L2 ports) are 8 bytes; 9-14 reserved
 * and 15 checksum complement, 4 bytes each. */
const struct hw_md_table hw_md_int21 = {{N, P1, LAT, Q, IT, ET, P2, TX, BUF, NO, NO, NO, NO, NO, NO, NO}, 0x0e00, 1, 0};

/* INT v1.0: 4-byte timestamps; L2 ports (bit 6) are 8 bytes. */
const struct hw_md_table hw_md_int10 = {{N, P1, LAT, Q, IT, ET, P2, TX, BUF, NO, NO, NO, NO, NO, NO, NO}, 0x0200, 0, 0};

/* INT v0.5: every instruction 4 bytes; bit 6 is queue id + congestion status (not recorded). */
const struct hw_md_table hw_md_int05 = {{N, P1, LAT, Q, IT, ET, NO, TX, NO, NO, NO, NO, NO, NO, NO, NO}, 0x0000, 0, 0};

/* GEANT int-platform: v1.0 bit meanings, 8-byte timestamps, 16 + 16-bit L2 ports. */
const struct hw_md_table hw_md_geant = {{N, P1, LAT, Q, IT, ET, P2, TX, BUF, NO, NO, NO, NO, NO, NO, NO}, 0x0c00, 1, 1};

/* Telemetry Report v2.0 RepMdBits: bit 0 reserved (the node id is in the group header), bits 4-6
 * 8 bytes, bit 15 queue id + drop reason. */
const struct hw_md_table hw_md_tr2 = {
    {NO, P1, LAT, Q, IT, ET, P2, TX, BUF, NO, NO, NO, NO, NO, NO, DROP}, 0x0e00, 1, 0};

/* Telemetry Report v1.0 RepMdBits, 6 bits placed at the top of the map by the caller: ports, hop
 * latency, queue, egress timestamp, drop, tx utilisation; all 4 bytes. */
const struct hw_md_table hw_md_tr1 = {{P1, LAT, Q, ET, DROP, TX, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO}, 0x0000, 0, 0};
