/* Credentials hidden for messages: URLs as given to --clickhouse, --alertmanager, --webhook may carry
 * user:password@ or a password= parameter (issue 22 item 12: printed in error messages). */
#ifndef HOPWATCH_REDACT_H
#define HOPWATCH_REDACT_H

#include <stddef.h>

/* url with the password of user:password@ and of a password= parameter replaced by ***, into out (size bytes,
 * truncated to fit).  out. */
char *hw_http_redact(const char *url, char *out, size_t size);

#endif
