/* Per-hop metadata formats as tables: which recorded field each bitmap bit selects in every INT and
 * report version, and how wide the fields are (from the HW_MD_<F>_* lists in wire_internal.h). */
#include "wire_internal.h"

const struct hw_md_table hw_md_int21 = HW_MD_TABLE(INT21);
const struct hw_md_table hw_md_int10 = HW_MD_TABLE(INT10);
const struct hw_md_table hw_md_int05 = HW_MD_TABLE(INT05);
const struct hw_md_table hw_md_geant = HW_MD_TABLE(GEANT);
const struct hw_md_table hw_md_tr2 = HW_MD_TABLE(TR2);
const struct hw_md_table hw_md_tr1 = HW_MD_TABLE(TR1);
