/* Running as a systemd service: readiness, a one-line status, the watchdog and stopping, told to the
 * service manager through sd_notify(3) when libsystemd is built in, and a no-op otherwise. */
#ifndef HOPWATCH_SERVICE_H
#define HOPWATCH_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

/* READY=1 with a first STATUS= line: inputs and outputs are up. */
void hw_service_ready(const char *status);
/* STATUS=: one line systemctl status shows (newlines are replaced by spaces). */
void hw_service_status(const char *status);
/* The watchdog interval the unit asks for (WatchdogSec=, for this process), in microseconds; 0 when
 * there is none or libsystemd is not built in. */
uint64_t hw_service_watchdog_usec(void);
/* WATCHDOG=1: the process is alive and making progress. */
void hw_service_watchdog(void);
/* STOPPING=1 with a last STATUS= line: shutdown has begun. */
void hw_service_stopping(const char *status);
/* "<PRIO>" (syslog priority, 0 = emerg .. 7 = debug) when standard error is connected to the journal
 * (JOURNAL_STREAM names it), for journald to file the line under that priority; "" otherwise. */
const char *hw_service_log_prefix(int prio);
/* True when built with libsystemd (the functions above talk to the service manager). */
bool hw_service_supported(void);

#endif
