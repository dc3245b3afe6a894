/* hw_emit out of line, for the report formats off the hot path and bare INT packets; the code is
 * in wire_emit.h, which the TR v2.0 parser inlines. */
#include "wire_emit.h"

HW_HOT_CLONES enum hw_result hw_emit(struct hw_ctx *c, const struct hw_report_meta *m, struct hw_inner *in,
                                     struct hw_own *own)
{
	return hw_emit_inline(c, m, in, own);
}
