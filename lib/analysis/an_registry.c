/* The registry of detectors as the core sees it: every detector the analyzer runs, in the order it runs them.
 * The list itself is one line per detector in lib/analysis/meson.build (its file and its structs). */
#include "detector.h"

#include "an_registry_list.h"

#define AN_DECLARE(d) extern const struct an_detector d;
AN_DETECTORS(AN_DECLARE)
#undef AN_DECLARE

const struct an_detector *const an_registry[] = {
#define AN_ADDRESS(d) &d,
    AN_DETECTORS(AN_ADDRESS)
#undef AN_ADDRESS
};
const unsigned an_registry_count = sizeof(an_registry) / sizeof(an_registry[0]);
