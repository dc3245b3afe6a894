/* Test helper: LLDP Ethernet frames written TLV by TLV from the IEEE 802.1AB / 802.1Q / 802.3 tables,
 * so that model, capture and rendering tests can say what each end advertises (MTU, PFC, names, TTL). */
#ifndef HOPWATCH_TEST_LLDP_FRAMES_H
#define HOPWATCH_TEST_LLDP_FRAMES_H

#include <stddef.h>
#include <stdint.h>

struct test_end {
	uint8_t mac;      /* chassis MAC 02:00:00:00:00:<mac> (subtype 4) */
	const char *port; /* port ID, subtype 5 (interface name) */
	const char *name; /* system name */
	uint16_t ttl;
	uint16_t max_frame; /* 0 = no 802.3 Maximum Frame Size TLV */
	int pfc;            /* -1 = no PFC TLV, else the enable bitmap */
	uint16_t caps;      /* enabled capabilities (0 = no TLV) */
};

/* Write the frame into buf (>= 300 bytes); returns its length. */
size_t test_lldp_frame(const struct test_end *e, uint8_t *buf);

#endif
