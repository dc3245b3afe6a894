/* diagnose on DPDK: EAL initialisation, the ports it found, their links, then run->seconds of
 * receiving on queue 0 of every port into the diagnose worker, on the main lcore. */
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "collector.h"
#include "diagnose.h"

#define BURST 32

/* One RX and one TX queue, started, promiscuous.  0, or -1 with err. */
static int start_port(uint16_t port, struct rte_mempool *pool, char *err, size_t errlen)
{
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	int rc = rte_eth_dev_configure(port, 1, 1, &conf);
	uint16_t nrx = 1024, ntx = 64;
	if (!rc)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (!rc)
		rc = rte_eth_rx_queue_setup(port, 0, nrx, rte_eth_dev_socket_id(port), NULL, pool);
	if (!rc)
		rc = rte_eth_tx_queue_setup(port, 0, ntx, rte_eth_dev_socket_id(port), NULL);
	if (!rc)
		rc = rte_eth_dev_start(port);
	if (rc) {
		snprintf(err, errlen, "%s", rte_strerror(-rc));
		return -1;
	}
	rte_eth_promiscuous_enable(port);
	return 0;
}

bool hw_diag_dpdk(struct hw_diag_run *run, int eal_argc, char **eal_argv)
{
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		hw_diag_line(
		    run, HW_DIAG_FAIL, "dpdk_eal",
		    "run as root (or with the capabilities of deploy/systemd/hopwatch-collector.service), "
		    "reserve hugepages or pass --no-huge, and check the EAL options before '--' (-l, -a, --vdev)",
		    "EAL initialisation failed: %s", rte_strerror(rte_errno));
		hw_diag_line(run, HW_DIAG_SKIP, "ports", NULL, "no EAL");
		hw_diag_line(run, HW_DIAG_SKIP, "link", NULL, "no EAL");
		hw_diag_line(run, HW_DIAG_SKIP, "reports", NULL, "no EAL");
		return false;
	}
	hw_diag_line(run, HW_DIAG_PASS, "dpdk_eal", NULL, "EAL up: %u lcores", rte_lcore_count());
	bool ok = false;
	uint16_t nports = rte_eth_dev_count_avail();
	if (!nports) {
		hw_diag_line(run, HW_DIAG_FAIL, "ports",
		             "bind the report NIC to a DPDK driver (dpdk-devbind.py -b vfio-pci PCI) and allow it "
		             "with -a PCI, or add a --vdev (net_af_packet0,iface=IF for a kernel interface)",
		             "DPDK found no ports");
		hw_diag_line(run, HW_DIAG_SKIP, "link", NULL, "no ports");
		hw_diag_line(run, HW_DIAG_SKIP, "reports", NULL, "no ports");
		goto out;
	}
	struct rte_mempool *pool = rte_pktmbuf_pool_create("hw_diag_mbufs", 4095u * nports + 1024u, 256, 0,
	                                                   RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (!pool) {
		hw_diag_line(run, HW_DIAG_FAIL, "ports", "give the EAL more memory (-m) or more hugepages",
		             "cannot create the mbuf pool: %s", rte_strerror(rte_errno));
		goto out;
	}
	char names[512] = "", down[512] = "";
	size_t o = 0, od = 0;
	unsigned started = 0, n_down = 0;
	uint16_t port;
	RTE_ETH_FOREACH_DEV(port)
	{
		struct rte_eth_dev_info info;
		char err[256];
		const char *drv = rte_eth_dev_info_get(port, &info) == 0 && info.driver_name ? info.driver_name : "?";
		if (start_port(port, pool, err, sizeof(err))) {
			hw_diag_line(run, HW_DIAG_FAIL, "ports",
			             "check the NIC's driver binding and the queue sizes it takes",
			             "port %u (%s) does not start: %s", port, drv, err);
			continue;
		}
		started++;
		if (o < sizeof(names))
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%u (%s)", o ? ", " : "", port, drv);
	}
	if (!started)
		goto out;
	hw_diag_line(run, HW_DIAG_PASS, "ports", NULL, "%u port%s started: %s", started, started > 1 ? "s" : "", names);

	/* links come up within a few seconds of starting */
	double t0 = hw_mono_s();
	for (;;) {
		n_down = 0;
		od = 0;
		RTE_ETH_FOREACH_DEV(port)
		{
			struct rte_eth_link l;
			if (rte_eth_link_get_nowait(port, &l) == 0 && l.link_status == RTE_ETH_LINK_DOWN) {
				n_down++;
				if (od < sizeof(down))
					od += (size_t)snprintf(down + od, sizeof(down) - od, "%s%u", od ? ", " : "",
					                       port);
			}
		}
		if (!n_down || hw_mono_s() - t0 > 3)
			break;
		usleep(100000);
	}
	if (n_down)
		hw_diag_line(
		    run, HW_DIAG_FAIL, "link",
		    "check the cable/optics and the switch port facing this NIC (and that the interface behind a "
		    "net_af_packet vdev is up: ip link set IF up)",
		    "link down on port %s", down);
	else
		hw_diag_line(run, HW_DIAG_PASS, "link", NULL, "every port's link is up");

	struct rte_mbuf *m[BURST];
	double end = hw_mono_s() + run->seconds;
	while (hw_mono_s() < end) {
		unsigned got = 0;
		RTE_ETH_FOREACH_DEV(port)
		{
			uint16_t n = rte_eth_rx_burst(port, 0, m, BURST);
			uint64_t now = hw_real_ns();
			for (uint16_t k = 0; k < n; k++) {
				const uint8_t *p = rte_pktmbuf_mtod(m[k], const uint8_t *);
				hw_worker_frame(run->w, p, rte_pktmbuf_data_len(m[k]), now);
			}
			if (n)
				rte_pktmbuf_free_bulk(m, n);
			got += n;
		}
		hw_diag_drain(run);
		if (!got)
			usleep(1000);
	}
	ok = true;
	RTE_ETH_FOREACH_DEV(port)
	{
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
out:
	rte_eal_cleanup();
	return ok;
}
