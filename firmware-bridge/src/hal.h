/*
 * What the firmware needs from a board. One implementation per target:
 * host/hal_posix.c (a tty on Linux, for tests) and targets/ (real MCUs).
 * Every call is non-blocking; the firmware calls firmware_poll() in a loop.
 */
#ifndef BRIDGE_HAL_H
#define BRIDGE_HAL_H

#include <stddef.h>
#include <stdint.h>

/* Input bits, the same as the STATUS `inputs` byte. */
#define HAL_IN_PASSAGE 0x01u
#define HAL_IN_DOOR 0x02u
#define HAL_IN_FIRE 0x04u

/* Milliseconds since an arbitrary start; wraps at 2^32 (the firmware compares differences). */
uint32_t hal_millis(void);

/* Called once per boot, after the relay and LEDs are already off. */
void hal_uart_init(void);
/* Copies up to cap received bytes into buf without waiting; returns how many. */
size_t hal_uart_read(uint8_t *buf, size_t cap);
/* Queues bytes for transmission; at most 41 per call (one wire frame). */
void hal_uart_write(const uint8_t *buf, size_t len);

void hal_relay(int on);
void hal_led_red(int on);
void hal_led_green(int on);
void hal_buzzer(int on);

/* Raw HAL_IN_* levels, 1 = asserted; the firmware debounces them. */
uint8_t hal_read_inputs(void);

/* Why the board last reset, as the BOOT `resetCause` code (0 power-on ... 255 unknown). */
uint8_t hal_reset_cause(void);

/* Logical events ("deny", 3) for the host build's side channel; a no-op on real boards. */
void hal_trace(const char *event, long value);

#endif
