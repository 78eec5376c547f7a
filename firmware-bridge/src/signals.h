/* Timed on/off sequences for the LEDs and the buzzer, and the DENY pattern table. */
#ifndef BRIDGE_SIGNALS_H
#define BRIDGE_SIGNALS_H

#include <stdint.h>

#define SIGNAL_RED 0x01u
#define SIGNAL_GREEN 0x02u

/* `count` periods of on_ms on then off_ms off, from `start`; count 0 repeats forever. */
typedef struct {
	uint8_t active;
	uint8_t mask; /* which LEDs (SIGNAL_*); unused for the buzzer */
	uint8_t count;
	uint16_t on_ms;
	uint16_t off_ms;
	uint32_t start;
} signal_t;

void signal_start(signal_t *s, uint8_t mask, uint16_t on_ms, uint16_t off_ms, uint8_t count, uint32_t now);
void signal_steady(signal_t *s, uint8_t mask, uint32_t now);
void signal_stop(signal_t *s);
/* 1 while the sequence is in an "on" phase; ends (active = 0) after its last period. */
int signal_level(signal_t *s, uint32_t now);

/* Starts the red LED and buzzer signal of a DENY pattern (PROTOCOL.md table). */
void signal_deny(signal_t *led, signal_t *buzzer, uint8_t pattern, uint32_t now);

#endif
