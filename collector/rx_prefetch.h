/* Prefetch of a received burst's frames for the DPDK worker loop (dpdk_front.c, and bench_collector's copy of
 * that loop): every cache line of a frame, RX_AHEAD frames before the parser reads it, unless the driver copied it. */
#ifndef HW_RX_PREFETCH_H
#define HW_RX_PREFETCH_H

#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <string.h>

/* Frames prefetched ahead of the one being parsed.  One frame ahead, and its first line only (a 5-hop TR v2.0
 * report is five lines), left the parser waiting on memory whenever the frames were not in the cache already:
 * with 65,536 flows the worker ran at 0.67 of its 256-flow rate, and 0.8 of its own one-frame-at-a-time path,
 * whose state updates between two parses hid the load (docs/performance.md, round 13). */
#define RX_AHEAD 4

/* Drivers that copy each frame into its mbuf as they receive it (from a capture, a kernel socket ring): the
 * frames of a burst are in the cache already, and the prefetches only cost (net_pcap: 0.96-0.98 of the rate
 * without them).  Others (a NIC's DMA, net_ring's mbufs) leave the frames where the device put them. */
static inline int hw_rx_copies(const char *driver)
{
	static const char *const copying[] = {"net_pcap", "net_af_packet", "net_tap"};
	for (size_t i = 0; driver && i < sizeof(copying) / sizeof(copying[0]); i++)
		if (!strcmp(driver, copying[i]))
			return 1;
	return 0;
}

static inline void hw_rx_prefetch_frame(const struct rte_mbuf *m)
{
	const char *p = rte_pktmbuf_mtod(m, const char *);
	const uint32_t len = rte_pktmbuf_data_len(m);
	for (uint32_t o = 0; o < len; o += RTE_CACHE_LINE_SIZE)
		rte_prefetch0(p + o);
}

/* Before the burst m[0 .. n): its first RX_AHEAD frames (warm: a copying driver's, hw_rx_copies: none). */
static inline void hw_rx_prefetch_start(struct rte_mbuf *const *m, uint16_t n, int warm)
{
	for (uint16_t k = 0; !warm && k < n && k < RX_AHEAD; k++)
		hw_rx_prefetch_frame(m[k]);
}

/* Before frame k of the burst is parsed: frame k + RX_AHEAD; warm, the next frame's first line only (its frames are
 * in the cache already). */
static inline void hw_rx_prefetch_next(struct rte_mbuf *const *m, uint16_t n, uint16_t k, int warm)
{
	if (warm) {
		if (k + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(m[k + 1], const void *));
	} else if (k + RX_AHEAD < n) {
		hw_rx_prefetch_frame(m[k + RX_AHEAD]);
	}
}

#endif
