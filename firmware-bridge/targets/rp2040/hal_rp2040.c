/*
 * hal.h on an RP2040 (Raspberry Pi Pico) with the pico-sdk. Not built in this repository
 * (no ARM toolchain here); see ../../README.md for the wiring and the build.
 */
#include "hal_rp2040.h"

#include "hardware/gpio.h"
#include "hardware/structs/vreg_and_chip_reset.h"
#include "hardware/uart.h"
#include "hardware/watchdog.h"
#include "pico/stdlib.h"

#include "../../src/hal.h"

#define LINK_UART uart0
#define PIN_UART_TX 0
#define PIN_UART_RX 1
#define PIN_FIRE 9
#define PIN_PASSAGE 10
#define PIN_DOOR 11
#define PIN_BUZZER 12
#define PIN_LED_GREEN 13
#define PIN_LED_RED 14
#define PIN_RELAY 15

static void output_low(unsigned pin)
{
	gpio_init(pin);
	gpio_put(pin, 0);
	gpio_set_dir(pin, GPIO_OUT);
}

static void input_pulled_up(unsigned pin)
{
	gpio_init(pin);
	gpio_set_dir(pin, GPIO_IN);
	gpio_pull_up(pin);
}

void hal_rp2040_init_pins(void)
{
	/* The relay driver input is pulled down on the board, so the relay is off until here too. */
	output_low(PIN_RELAY);
	output_low(PIN_LED_RED);
	output_low(PIN_LED_GREEN);
	output_low(PIN_BUZZER);
	input_pulled_up(PIN_PASSAGE);
	input_pulled_up(PIN_DOOR);
	input_pulled_up(PIN_FIRE);
}

uint32_t hal_millis(void)
{
	return to_ms_since_boot(get_absolute_time());
}

void hal_uart_init(void)
{
	uart_init(LINK_UART, 115200);
	uart_set_format(LINK_UART, 8, 1, UART_PARITY_NONE);
	uart_set_fifo_enabled(LINK_UART, true);
	gpio_set_function(PIN_UART_TX, GPIO_FUNC_UART);
	gpio_set_function(PIN_UART_RX, GPIO_FUNC_UART);
}

size_t hal_uart_read(uint8_t *buf, size_t cap)
{
	size_t n = 0;
	while (n < cap && uart_is_readable(LINK_UART))
		buf[n++] = (uint8_t)uart_getc(LINK_UART);
	return n;
}

void hal_uart_write(const uint8_t *buf, size_t len)
{
	/* At most 41 bytes: about 3.6 ms at 115200 baud, well inside the 1 ms-tick budget's slack. */
	uart_write_blocking(LINK_UART, buf, len);
}

void hal_relay(int on)
{
	gpio_put(PIN_RELAY, on != 0);
}

void hal_led_red(int on)
{
	gpio_put(PIN_LED_RED, on != 0);
}

void hal_led_green(int on)
{
	gpio_put(PIN_LED_GREEN, on != 0);
}

void hal_buzzer(int on)
{
	gpio_put(PIN_BUZZER, on != 0);
}

uint8_t hal_read_inputs(void)
{
	uint8_t in = 0;
	/* Passage and door are contacts to GND (closed = asserted). */
	if (!gpio_get(PIN_PASSAGE))
		in |= HAL_IN_PASSAGE;
	if (!gpio_get(PIN_DOOR))
		in |= HAL_IN_DOOR;
	/* The fire panel contact is normally closed: an open loop or a cut wire means fire, so free passage. */
	if (gpio_get(PIN_FIRE))
		in |= HAL_IN_FIRE;
	return in;
}

uint8_t hal_reset_cause(void)
{
	if (watchdog_caused_reboot())
		return 1;
	if (vreg_and_chip_reset_hw->chip_reset & VREG_AND_CHIP_RESET_CHIP_RESET_HAD_RUN_BITS)
		return 3;
	if (vreg_and_chip_reset_hw->chip_reset & VREG_AND_CHIP_RESET_CHIP_RESET_HAD_POR_BITS)
		return 0; /* the RP2040 reports brown-out as power-on */
	return 255;
}

void hal_trace(const char *event, long value)
{
	(void)event;
	(void)value;
}
