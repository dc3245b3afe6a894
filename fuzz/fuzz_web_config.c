/* libFuzzer target for the exporter web configuration reader of --web-config (lib/common/web_config.c): a file
 * read gives both TLS files or neither and users with names and hashes; a refusal says why and leaves nothing. */
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "web_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	struct hw_web_config c;
	char err[512];
	err[0] = 0;
	if (hw_web_config_read(path, &c, err, sizeof(err))) {
		if (!err[0] || strnlen(err, sizeof(err)) >= sizeof(err) || c.users || c.cert_file || c.key_file)
			__builtin_trap(); /* a refusal says why and leaves nothing behind */
		return 0;
	}
	if (!c.cert_file != !c.key_file)
		__builtin_trap(); /* TLS needs both files */
	for (size_t i = 0; i < c.n_users; i++) {
		if (!c.users[i].name[0] || !c.users[i].hash[0] || strchr(c.users[i].name, ':'))
			__builtin_trap(); /* a user without a name or a hash */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c.users[i].name, c.users[j].name))
				__builtin_trap(); /* the same user twice */
	}
	hw_web_config_free(&c);
	return 0;
}
