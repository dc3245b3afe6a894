/* The Prometheus exporter web configuration file (--web-config, the exporter-toolkit convention): TLS
 * certificate and key files and basic-auth users with their bcrypt hashes, read from YAML or its JSON form. */
#ifndef HOPWATCH_WEB_CONFIG_H
#define HOPWATCH_WEB_CONFIG_H

#include <stddef.h>

struct hw_web_user {
	char *name, *hash; /* hash: as written (crypt(3) text); the server checks what it accepts */
};

struct hw_web_config {
	char *cert_file, *key_file; /* tls_server_config, relative paths resolved against the file's directory; both
	                               or neither; NULL = plain HTTP */
	struct hw_web_user *users;  /* basic_auth_users, in file order */
	size_t n_users;
};

/* Read path:
 *   tls_server_config: {cert_file: FILE, key_file: FILE}
 *   basic_auth_users: {USER: HASH, ...}
 * Any other key (client_ca_file, http_server_config, ...) is refused by name rather than ignored: a setting
 * the file asks for and the server would not apply.  An empty file configures nothing.  0, or -1 with a
 * message naming the file (and the line, or the key) in err; c is then empty. */
int hw_web_config_read(const char *path, struct hw_web_config *c, char *err, size_t errlen);
void hw_web_config_free(struct hw_web_config *c);

#endif
