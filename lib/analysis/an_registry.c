/* The registry of detectors: every detector the analyzer runs, in the order it runs them (the order of events
 * raised by one record follows it).  A new detector is a file in detectors/ and a line here (and its file
 * name in meson.build). */
#include "detector.h"

#define AN_DETECTORS(X)                                                                                                \
	X(an_detect_buildup)                                                                                           \
	X(an_detect_high_queue)                                                                                        \
	X(an_detect_high_latency)                                                                                      \
	X(an_detect_microburst)                                                                                        \
	X(an_detect_drops)                                                                                             \
	X(an_detect_incast)                                                                                            \
	X(an_detect_dscp)                                                                                              \
	X(an_detect_report_loss)                                                                                       \
	X(an_detect_path_change)                                                                                       \
	X(an_detect_congestion_tree)                                                                                   \
	/* a new detector: one line above */

#define AN_DECLARE(d) extern const struct an_detector d;
AN_DETECTORS(AN_DECLARE)
#undef AN_DECLARE

const struct an_detector *const an_registry[] = {
#define AN_ADDRESS(d) &d,
    AN_DETECTORS(AN_ADDRESS)
#undef AN_ADDRESS
};
const unsigned an_registry_count = sizeof(an_registry) / sizeof(an_registry[0]);
