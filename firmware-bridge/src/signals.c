#include "signals.h"

#define DENY_GENERIC_MS 800u
#define DENY_GENERIC_BEEP_MS 300u
#define DENY_GENERIC_GAP_MS 200u
#define DENY_FLASH_MS 150u

void signal_start(signal_t *s, uint8_t mask, uint16_t on_ms, uint16_t off_ms, uint8_t count, uint32_t now)
{
	s->active = on_ms > 0;
	s->mask = mask;
	s->on_ms = on_ms;
	s->off_ms = off_ms;
	s->count = count;
	s->start = now;
}

void signal_steady(signal_t *s, uint8_t mask, uint32_t now)
{
	signal_start(s, mask, 1, 0, 0, now);
}

void signal_stop(signal_t *s)
{
	s->active = 0;
}

int signal_level(signal_t *s, uint32_t now)
{
	uint32_t period, elapsed;

	if (!s->active)
		return 0;
	period = (uint32_t)s->on_ms + s->off_ms;
	elapsed = now - s->start;
	if (s->count != 0 && elapsed / period >= s->count) {
		s->active = 0;
		return 0;
	}
	return elapsed % period < s->on_ms;
}

void signal_deny(signal_t *led, signal_t *buzzer, uint8_t pattern, uint32_t now)
{
	/* Two beeps under one long flash: no numbered pattern has that pair of counts. */
	if (pattern == 0) {
		signal_start(led, SIGNAL_RED, DENY_GENERIC_MS, 0, 1, now);
		signal_start(buzzer, 0, DENY_GENERIC_BEEP_MS, DENY_GENERIC_GAP_MS, 2, now);
		return;
	}
	signal_start(led, SIGNAL_RED, DENY_FLASH_MS, DENY_FLASH_MS, pattern, now);
	signal_start(buzzer, 0, DENY_FLASH_MS, DENY_FLASH_MS, pattern, now);
}
