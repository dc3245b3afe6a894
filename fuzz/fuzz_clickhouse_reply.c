/* libFuzzer target for the reader of ClickHouse's answers to `run --clickhouse` (analyzer/records_clickhouse.c):
 * RowBinary rows, error text after them, error answers.  The answer comes in pieces of a size the input picks,
 * and must decode exactly as it does in one piece (the same records, refused or not); a refusal says why; a 200 answer
 * that is read whole gives one record per row.  Input: byte 0 bit 0 = HTTP 200 or 500, byte 1 = piece size - 1, then
 * the answer. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* the reader's state and callbacks are private to the file: the target compiles it in */
#include "../analyzer/records_clickhouse.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	long long n;
	uint64_t sum; /* of the delivered records' bytes, order-sensitive */
};

static int take(void *ctx, const struct hw_record *recs, size_t n)
{
	struct tally *t = ctx;
	const uint8_t *b = (const uint8_t *)recs;
	for (size_t i = 0; i < n * sizeof(*recs); i++)
		t->sum = t->sum * 31 + b[i];
	t->n += (long long)n;
	return 0;
}

/* Feed the answer in pieces of piece bytes; the result of reply_end, with the tally and err. */
static long long read_answer(const uint8_t *d, size_t size, long status, size_t piece, struct tally *t, char *err,
                             size_t errlen)
{
	struct hw_ch_replay q = {.url = "http://127.0.0.1:8123/", .table = "hops"};
	struct hw_record buf[3]; /* a small batch: deliveries in the middle of a piece */
	struct reader r = {.q = &q,
	                   .table = "hops",
	                   .url = q.url,
	                   .buf = buf,
	                   .n_cap = 3,
	                   .fn = take,
	                   .ctx = t,
	                   .err = err,
	                   .errlen = errlen};
	err[0] = 0;
	for (size_t i = 0; i < size; i += piece)
		if (on_data(&r, status, (const char *)d + i, size - i < piece ? size - i : piece))
			break;
	if (r.len >= ROW_BYTES || r.body_len >= sizeof(r.body))
		__builtin_trap(); /* a partial row or the error text outgrew its buffer */
	return reply_end(&r, NULL, status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	long status = data[0] & 1 ? 200 : 500;
	size_t piece = (size_t)data[1] + 1;
	data += 2, size -= 2;
	char e1[512], e2[512];
	struct tally whole = {0, 0}, pieces = {0, 0};
	long long a = read_answer(data, size, status, size ? size : 1, &whole, e1, sizeof(e1));
	long long b = read_answer(data, size, status, piece, &pieces, e2, sizeof(e2));
	if (a != b || whole.n != pieces.n || whole.sum != pieces.sum)
		__builtin_trap(); /* the answer read in pieces differs from the answer read whole */
	/* (the words may differ: how much of an error text after the rows is seen depends on the pieces) */
	if (a < 0 &&
	    (!e1[0] || strnlen(e1, sizeof(e1)) >= sizeof(e1) || !e2[0] || strnlen(e2, sizeof(e2)) >= sizeof(e2)))
		__builtin_trap(); /* a refusal says why */
	if (a >= 0 && (status != 200 || size % ROW_BYTES || a != (long long)(size / ROW_BYTES) || a != whole.n))
		__builtin_trap(); /* accepted: a 200 answer of whole rows, one record each, all delivered */
	return 0;
}
