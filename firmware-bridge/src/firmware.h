/*
 * The bridge board's state machine (PROTOCOL.md). Portable C99, no malloc, no OS calls:
 * everything it touches goes through hal.h. A board calls firmware_init() once after reset
 * and firmware_poll() in its main loop, at least every millisecond.
 */
#ifndef BRIDGE_FIRMWARE_H
#define BRIDGE_FIRMWARE_H

#include <stdint.h>

#include "link.h"
#include "signals.h"

#define FW_VERSION_MAJOR 1u
#define FW_VERSION_MINOR 0u
#define FW_DEBOUNCE_MS 10u
#define FW_GRANT_BEEP_MS 80u
#define FW_INPUT_COUNT 3u

/* STATUS `outputs` bits. */
#define FW_OUT_RELAY 0x01u
#define FW_OUT_GREEN 0x02u
#define FW_OUT_RED 0x04u
#define FW_OUT_BUZZER 0x08u

typedef struct {
	link_t link;

	uint8_t hello_seen;
	uint8_t online; /* 0 = offline, the fail mode applies */
	uint8_t fail_mode;
	uint8_t watchdog_armed;
	uint16_t watchdog_ms;
	uint32_t watchdog_deadline;

	uint8_t pulse_on;
	uint32_t pulse_end;
	uint8_t host_free;
	uint8_t last_direction;

	uint8_t inputs; /* debounced HAL_IN_* bits */
	uint8_t raw_inputs;
	uint32_t raw_since[FW_INPUT_COUNT];
	uint8_t status_pending;

	signal_t led;
	signal_t buzzer;
	uint8_t outputs; /* FW_OUT_* as last applied to the HAL */
} firmware_t;

void firmware_init(firmware_t *fw);
void firmware_poll(firmware_t *fw);

#endif
