/* Names and messages of parse outcomes (enum hw_result), from the one list in wire.h.
 * Names are stable: they are metric labels and JSON keys. */
#include "hopwatch/wire.h"

static const char *const names[] = {
#define HW_X_NAME(e, n, m) n,
    HW_RESULT_LIST(HW_X_NAME)
#undef HW_X_NAME
};

static const char *const messages[] = {
#define HW_X_MSG(e, n, m) m,
    HW_RESULT_LIST(HW_X_MSG)
#undef HW_X_MSG
};

const char *hw_result_name(enum hw_result r)
{
	return (unsigned)r < HW_RESULT_COUNT ? names[r] : "invalid";
}

const char *hw_result_message(enum hw_result r)
{
	return (unsigned)r < HW_RESULT_COUNT ? messages[r] : "invalid result code";
}
