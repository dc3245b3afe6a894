/* The console's static files (lib/outputs/console/), embedded into the analyzer at build time by
 * console/embed.py: path served, content type, bytes. */
#ifndef HOPWATCH_CONSOLE_ASSETS_H
#define HOPWATCH_CONSOLE_ASSETS_H

#include <stddef.h>

struct an_console_asset {
	const char *path, *type; /* NULL path ends the table */
	const unsigned char *data;
	size_t len;
};

extern const struct an_console_asset an_console_assets[];

#endif
