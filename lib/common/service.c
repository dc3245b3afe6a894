/* sd_notify(3) for both programs: READY, STATUS, WATCHDOG and STOPPING messages to the service manager
 * (NOTIFY_SOCKET), or nothing at all when hopwatch is built without libsystemd. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "service.h"

#ifdef HW_HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>

/* "PREFIX\nSTATUS=line" (or either alone), the line's newlines made spaces; sd_notify does nothing
 * when NOTIFY_SOCKET is unset. */
static void notify(const char *prefix, const char *status)
{
	char msg[1024] = "";
	size_t o = 0;
	if (*prefix)
		o = (size_t)snprintf(msg, sizeof(msg), "%s", prefix);
	if (status && o < sizeof(msg)) {
		o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%sSTATUS=", o ? "\n" : "");
		for (const char *p = status; *p && o + 1 < sizeof(msg); p++)
			msg[o++] = *p == '\n' || *p == '\r' ? ' ' : *p;
		if (o >= sizeof(msg))
			o = sizeof(msg) - 1;
		msg[o] = '\0';
	}
	if (*msg)
		sd_notify(0, msg);
}

void hw_service_ready(const char *status)
{
	notify("READY=1", status);
}

void hw_service_status(const char *status)
{
	notify("", status);
}

uint64_t hw_service_watchdog_usec(void)
{
	uint64_t usec = 0;
	return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
}

void hw_service_watchdog(void)
{
	sd_notify(0, "WATCHDOG=1");
}

void hw_service_stopping(const char *status)
{
	notify("STOPPING=1", status);
}

bool hw_service_supported(void)
{
	return true;
}

#else

void hw_service_ready(const char *status)
{
	(void)status;
}

void hw_service_status(const char *status)
{
	(void)status;
}

uint64_t hw_service_watchdog_usec(void)
{
	return 0;
}

void hw_service_watchdog(void) {}

void hw_service_stopping(const char *status)
{
	(void)status;
}

bool hw_service_supported(void)
{
	return false;
}

#endif
