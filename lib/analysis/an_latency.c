/* The latency matrix: end-to-end path latency (sum of hop latencies) of complete reports, per (source leaf,
 * destination leaf), with count, mean, min, max and a log-bucketed histogram for p99.9.  Bounded memory. */
#include <stdlib.h>
#include <string.h>

#include "an_internal.h"
#include "table_mem.h"

/* Histogram: values below LAT_SUB exact; above, LAT_SUB buckets per power of two up to 2^(LAT_MAX_EXP+1)
 * (a path of AN_PATH hops of 32-bit latencies stays below 2^36).  A bucket [lo, lo + w) has w <= lo/16,
 * so its midpoint is within w/2 <= v/32 of any value v in it. */
#define LAT_SUB 16u
#define LAT_SUB_BITS 4u
#define LAT_MAX_EXP 35u
#define LAT_BUCKETS (LAT_SUB + (LAT_MAX_EXP - LAT_SUB_BITS + 1u) * LAT_SUB)
#define LEAF_SLOTS (HW_AN_LAT_LEAVES * 2)

/* The per-report figures of a cell live apart from its histogram, so that they stay in cache. */
struct lat_cell {
	uint64_t count, sum, min, max;
	uint64_t hist_total; /* the histogram's own total: halved with it when a bucket would overflow */
};

struct hw_an_latmatrix {
	const struct hw_topo *topo;
	struct hw_an_lat_stats st;
	uint16_t slots[LEAF_SLOTS]; /* open addressing on node id: leaf index + 1, 0 = empty */
	uint32_t leaf_node[HW_AN_LAT_LEAVES];
	char leaf_name[HW_AN_LAT_LEAVES][HW_TOPO_NAME_MAX];
	struct lat_cell *cells;        /* HW_AN_LAT_LEAVES^2, [src * HW_AN_LAT_LEAVES + dst] */
	uint32_t (*hist)[LAT_BUCKETS]; /* the cells' histograms, same index */
	/* the last report's histogram increment, not yet added (an_latency_report: its line was prefetched) */
	uint32_t pend_cell;
	uint16_t pend_bucket;
	uint8_t pend;
};

struct hw_an_latmatrix *an_latency_create(const struct hw_topo *topo)
{
	struct hw_an_latmatrix *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->topo = topo;
	m->cells = hw_table_alloc((size_t)HW_AN_LAT_LEAVES * HW_AN_LAT_LEAVES * sizeof(*m->cells));
	m->hist = hw_table_alloc((size_t)HW_AN_LAT_LEAVES * HW_AN_LAT_LEAVES * sizeof(*m->hist));
	if (!m->cells || !m->hist) {
		an_latency_destroy(m);
		return NULL;
	}
	return m;
}

void an_latency_destroy(struct hw_an_latmatrix *m)
{
	if (!m)
		return;
	hw_table_free(m->cells);
	hw_table_free(m->hist);
	free(m);
}

static unsigned bucket_of(uint64_t v)
{
	if (v < LAT_SUB)
		return (unsigned)v;
	unsigned k = 63u - (unsigned)__builtin_clzll(v); /* v in [2^k, 2^(k+1)), k >= LAT_SUB_BITS */
	if (k > LAT_MAX_EXP)
		return LAT_BUCKETS - 1;
	return LAT_SUB + (k - LAT_SUB_BITS) * LAT_SUB + (unsigned)((v >> (k - LAT_SUB_BITS)) & (LAT_SUB - 1));
}

/* The midpoint of bucket b. */
static uint64_t bucket_mid(unsigned b)
{
	if (b < LAT_SUB)
		return b;
	unsigned k = LAT_SUB_BITS + (b - LAT_SUB) / LAT_SUB, sub = (b - LAT_SUB) % LAT_SUB;
	uint64_t w = 1ull << (k - LAT_SUB_BITS);
	return (uint64_t)(LAT_SUB + sub) * w + w / 2;
}

/* The leaf of a node id, added on first sight; HW_AN_LAT_LEAVES when the table is full. */
static uint32_t leaf_of(struct hw_an_latmatrix *m, uint32_t node_id)
{
	uint32_t h = (node_id * 2654435761u) >> 7;
	for (uint32_t i = 0; i < LEAF_SLOTS; i++) {
		uint16_t *s = &m->slots[(h + i) % LEAF_SLOTS];
		if (*s && m->leaf_node[*s - 1] == node_id)
			return *s - 1u;
		if (*s)
			continue;
		if (m->st.n_leaves >= HW_AN_LAT_LEAVES)
			return HW_AN_LAT_LEAVES;
		char *name = m->leaf_name[m->st.n_leaves];
		m->leaf_node[m->st.n_leaves] = node_id;
		uint32_t n = m->topo ? hw_topo_find_node_by_id(m->topo, node_id) : HW_TOPO_NONE;
		if (n != HW_TOPO_NONE)
			snprintf(name, HW_TOPO_NAME_MAX, "%s", m->topo->nodes[n].name);
		else
			snprintf(name, HW_TOPO_NAME_MAX, "%u", node_id);
		*s = (uint16_t)++m->st.n_leaves;
		return *s - 1u;
	}
	return HW_AN_LAT_LEAVES;
}

void an_latency_report(struct hw_an_latmatrix *m, const struct an_report *rep)
{
	unsigned n = rep->path_len;
	if (n < 2) {
		m->st.short_path++;
		return;
	}
	uint32_t all = n >= 32 ? UINT32_MAX : (1u << n) - 1u;
	if (n > AN_PATH || (rep->flags & (HW_RF_INTERMEDIATE | HW_RF_DROPPED)) || (rep->seen & all) != all) {
		m->st.partial++;
		return;
	}
	if ((rep->has_lat & all) != all) {
		m->st.no_latency++;
		return;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v += rep->hop_lat[i];
	uint32_t src = leaf_of(m, rep->hop_node[0]), dst = leaf_of(m, rep->hop_node[n - 1]);
	if (src >= HW_AN_LAT_LEAVES || dst >= HW_AN_LAT_LEAVES) {
		m->st.leaves_full++;
		return;
	}
	m->st.reports++;
	const uint32_t cell = src * HW_AN_LAT_LEAVES + dst;
	struct lat_cell *c = &m->cells[cell];
	if (!c->count || v < c->min)
		c->min = v;
	if (v > c->max)
		c->max = v;
	c->count++;
	c->sum += v;
	/* The bucket is a line of the 8.6 MB of histograms, a miss per report: its increment waits for the next
	 * report (or the next delivery, an_latency_flush), its line fetched meanwhile. */
	const unsigned b = bucket_of(v);
	__builtin_prefetch(&m->hist[cell][b], 1);
	an_latency_flush(m);
	m->pend_cell = cell;
	m->pend_bucket = (uint16_t)b;
	m->pend = 1;
}

void an_latency_flush(struct hw_an_latmatrix *m)
{
	if (!m || !m->pend)
		return;
	m->pend = 0;
	struct lat_cell *c = &m->cells[m->pend_cell];
	uint32_t *hist = m->hist[m->pend_cell];
	const unsigned b = m->pend_bucket;
	if (hist[b] == UINT32_MAX) { /* keep the shape, lose a little weight: halve everything */
		c->hist_total = 0;
		for (unsigned i = 0; i < LAT_BUCKETS; i++)
			c->hist_total += hist[i] = (uint32_t)(((uint64_t)hist[i] + 1) / 2);
	}
	hist[b]++;
	c->hist_total++;
}

void an_latency_flush_all(struct hw_analyzer *a)
{
	an_latency_flush(a->lat);
	for (unsigned g = 0; g < HW_AN_LAT_GROUPS; g++)
		an_latency_flush(a->lat_groups[g]);
}

void hw_an_lat_stats(const struct hw_an_latmatrix *m, struct hw_an_lat_stats *s)
{
	*s = m->st;
}

const char *hw_an_lat_leaf_name(const struct hw_an_latmatrix *m, uint32_t leaf)
{
	return leaf < m->st.n_leaves ? m->leaf_name[leaf] : "";
}

uint32_t hw_an_lat_leaf_node_id(const struct hw_an_latmatrix *m, uint32_t leaf)
{
	return leaf < m->st.n_leaves ? m->leaf_node[leaf] : 0;
}

uint32_t hw_an_lat_order(const struct hw_an_latmatrix *m, uint32_t *order)
{
	uint32_t n = m->st.n_leaves;
	for (uint32_t i = 0; i < n; i++) { /* insertion sort: at most HW_AN_LAT_LEAVES */
		uint32_t j = i;
		while (j > 0 && hw_name_cmp(m->leaf_name[order[j - 1]], m->leaf_name[i]) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	return n;
}

static const struct lat_cell *cell_at(const struct hw_an_latmatrix *m, uint32_t src, uint32_t dst)
{
	if (src >= m->st.n_leaves || dst >= m->st.n_leaves)
		return NULL;
	const struct lat_cell *c = &m->cells[src * HW_AN_LAT_LEAVES + dst];
	return c->count ? c : NULL;
}

/* Quantile q of a histogram of total values within [min, max]: the midpoint of the bucket holding the
 * ceil(q * total)-th smallest, clamped to [min, max]. */
static uint64_t hist_quantile(const uint32_t *hist, uint64_t total, uint64_t min, uint64_t max, double q)
{
	double r = q * (double)total;
	uint64_t rank = (uint64_t)r;
	if ((double)rank < r - 1e-9 * r) /* ceil, forgiving rounding in q * total */
		rank++;
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0, v = max;
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank) {
			v = bucket_mid(b);
			break;
		}
	}
	return v < min ? min : v > max ? max : v;
}

uint64_t hw_an_lat_quantile(const struct hw_an_latmatrix *m, uint32_t src, uint32_t dst, double q)
{
	const struct lat_cell *c = cell_at(m, src, dst);
	if (!c)
		return 0;
	return hist_quantile(m->hist[src * HW_AN_LAT_LEAVES + dst], c->hist_total, c->min, c->max, q);
}

/* A mark: per non-empty cell its count, sum and the non-zero buckets of its histogram. */
struct mark_cell {
	uint32_t cell;     /* src * HW_AN_LAT_LEAVES + dst */
	uint32_t first, n; /* its buckets: bucket[first .. first + n) */
	uint64_t count, sum;
};

struct hw_an_lat_mark {
	uint32_t n_cells;
	struct mark_cell *cells; /* by cell, ascending */
	uint16_t *bucket;
	uint32_t *value;
};

struct hw_an_lat_mark *hw_an_lat_mark(const struct hw_an_latmatrix *m)
{
	struct hw_an_lat_mark *k = calloc(1, sizeof(*k));
	size_t n_cells = 0, n_buckets = 0;
	for (uint32_t i = 0; i < HW_AN_LAT_LEAVES * HW_AN_LAT_LEAVES; i++)
		if (m->cells[i].count) {
			n_cells++;
			for (unsigned b = 0; b < LAT_BUCKETS; b++)
				n_buckets += m->hist[i][b] != 0;
		}
	if (!k || !(k->cells = calloc(n_cells + 1, sizeof(*k->cells))) ||
	    !(k->bucket = calloc(n_buckets + 1, sizeof(*k->bucket))) ||
	    !(k->value = calloc(n_buckets + 1, sizeof(*k->value)))) {
		hw_an_lat_mark_free(k);
		return NULL;
	}
	uint32_t used = 0;
	for (uint32_t i = 0; i < HW_AN_LAT_LEAVES * HW_AN_LAT_LEAVES; i++) {
		if (!m->cells[i].count)
			continue;
		struct mark_cell *c = &k->cells[k->n_cells++];
		*c = (struct mark_cell){i, used, 0, m->cells[i].count, m->cells[i].sum};
		for (unsigned b = 0; b < LAT_BUCKETS; b++)
			if (m->hist[i][b]) {
				k->bucket[used] = (uint16_t)b;
				k->value[used++] = m->hist[i][b];
			}
		c->n = used - c->first;
	}
	return k;
}

void hw_an_lat_mark_free(struct hw_an_lat_mark *k)
{
	if (!k)
		return;
	free(k->cells);
	free(k->bucket);
	free(k->value);
	free(k);
}

static const struct mark_cell *mark_find(const struct hw_an_lat_mark *k, uint32_t cell)
{
	uint32_t lo = 0, hi = k ? k->n_cells : 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (k->cells[mid].cell == cell)
			return &k->cells[mid];
		if (k->cells[mid].cell < cell)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int hw_an_lat_mean_since(const struct hw_an_latmatrix *m, const struct hw_an_lat_mark *k, uint32_t src, uint32_t dst,
                         uint64_t *count, double *mean)
{
	*count = 0;
	*mean = 0;
	const struct lat_cell *c = cell_at(m, src, dst);
	if (!c)
		return 0;
	const struct mark_cell *was = mark_find(k, src * HW_AN_LAT_LEAVES + dst);
	uint64_t n0 = was ? was->count : 0, sum0 = was ? was->sum : 0;
	if (c->count == n0)
		return 0;
	*count = c->count - n0;
	*mean = (double)(c->sum - sum0) / (double)*count;
	return 1;
}

int hw_an_lat_cell_since(const struct hw_an_latmatrix *m, const struct hw_an_lat_mark *k, uint32_t src, uint32_t dst,
                         struct hw_an_lat_cell *out)
{
	memset(out, 0, sizeof(*out));
	const struct lat_cell *c = cell_at(m, src, dst);
	if (!c)
		return 0;
	const struct mark_cell *was = mark_find(k, src * HW_AN_LAT_LEAVES + dst);
	if (!was)
		return hw_an_lat_cell(m, src, dst, out);
	if (!hw_an_lat_mean_since(m, k, src, dst, &out->count, &out->avg))
		return 0;
	uint32_t hist[LAT_BUCKETS];
	memcpy(hist, m->hist[src * HW_AN_LAT_LEAVES + dst], sizeof(hist));
	uint64_t total = c->hist_total;
	for (uint32_t i = was->first; i < was->first + was->n; i++) {
		if (hist[k->bucket[i]] < k->value[i])
			return -1; /* halved since the mark: count and mean only */
		hist[k->bucket[i]] -= k->value[i];
		total -= k->value[i];
	}
	out->p999 = hist_quantile(hist, total, c->min, c->max, 0.999);
	return 1;
}

int hw_an_lat_cell(const struct hw_an_latmatrix *m, uint32_t src, uint32_t dst, struct hw_an_lat_cell *out)
{
	memset(out, 0, sizeof(*out));
	const struct lat_cell *c = cell_at(m, src, dst);
	if (!c)
		return 0;
	out->count = c->count;
	out->avg = (double)c->sum / (double)c->count;
	out->min = c->min;
	out->max = c->max;
	out->p999 = hw_an_lat_quantile(m, src, dst, 0.999);
	return 1;
}

void hw_an_latency_groups(struct hw_analyzer *a, hw_an_group_fn group, void *ctx)
{
	a->lat_group = group;
	a->lat_group_ctx = ctx;
}

const struct hw_an_latmatrix *hw_an_latency_group(const struct hw_analyzer *a, unsigned g)
{
	return g < HW_AN_LAT_GROUPS ? a->lat_groups[g] : NULL;
}

void an_latency_group_report(struct hw_analyzer *a, const struct an_report *rep)
{
	if (!a->lat_group || !rep->has_flow)
		return;
	int g = a->lat_group(a->lat_group_ctx, rep->flow_hash);
	if (g < 0 || g >= HW_AN_LAT_GROUPS)
		return;
	if (!a->lat_groups[g] && !(a->lat_groups[g] = an_latency_create(a->topo)))
		return;
	an_latency_report(a->lat_groups[g], rep);
}

void an_latency_groups_free(struct hw_analyzer *a)
{
	for (unsigned g = 0; g < HW_AN_LAT_GROUPS; g++)
		an_latency_destroy(a->lat_groups[g]);
}
