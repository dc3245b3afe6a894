/* libFuzzer target for the direct pcap reader (pcap_file.c): it never reads past the input, walks the same in
 * steps, and reads each file it accepts exactly as libpcap does.  Run: build-fuzz/fuzz/fuzz_pcap_file fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "hopwatch/pcap_file.h"
#include "hopwatch/pcap_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A digest of every frame handed on: FNV-1a over each length, time and byte. */
struct digest {
	uint64_t h, frames;
};

static void mix(struct digest *d, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		d->h = (d->h ^ b[i]) * 0x100000001b3ull;
}

static void on_frame(void *arg, const uint8_t *frame, size_t len, uint64_t t)
{
	struct digest *d = arg;
	mix(d, &len, sizeof(len));
	mix(d, &t, sizeof(t));
	mix(d, frame, len); /* reads every byte: ASan sees a frame that runs past the input */
	d->frames++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hw_pcap_file_format f;
	if (!hw_pcap_file_header(data, size, &f))
		return 0; /* libpcap's to read; not this target's */
	struct digest walked = {0xcbf29ce484222325ull, 0};
	struct hw_pcap_file_walk w;
	hw_pcap_file_walk(data, size, &f, on_frame, &walked, NULL, &w);
	if (w.offset > size || w.frames != walked.frames || w.end == HW_PCAP_FILE_STOPPED ||
	    (w.end == HW_PCAP_FILE_EOF) != (w.offset == size))
		__builtin_trap();

	/* the same walk in steps, as the file reader goes: over more of the file each time (from the header on,
	 * step bytes more), on while the walk stopped at the end of what it had: the same frames and ending */
	struct digest stepped = {0xcbf29ce484222325ull, 0};
	struct hw_pcap_file_walk sw;
	hw_pcap_file_walk_init(&sw);
	const size_t step = 1 + size % 97;
	for (size_t have = HW_PCAP_FILE_HEADER;; have = size - have > step ? have + step : size) {
		hw_pcap_file_walk_on(data, have, &f, on_frame, &stepped, NULL, &sw);
		if (have == size || !hw_pcap_file_walk_more(&sw))
			break;
	}
	if (stepped.h != walked.h || sw.end != w.end || sw.offset != w.offset || sw.cut != w.cut)
		__builtin_trap();

	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	struct digest direct = {0xcbf29ce484222325ull, 0}, lib = {0xcbf29ce484222325ull, 0};
	struct hw_pcap_read_stats st;
	char err[512];
	int rd = hw_pcap_read_file_with(path, HW_PCAP_READ_DIRECT, on_frame, &direct, NULL, &st, err, sizeof(err));
	int rl = hw_pcap_read_file_with(path, HW_PCAP_READ_LIBPCAP, on_frame, &lib, NULL, NULL, err, sizeof(err));
	if (!st.direct || rd != rl || direct.frames != lib.frames || direct.h != lib.h || direct.h != walked.h)
		__builtin_trap();
	return 0;
}
