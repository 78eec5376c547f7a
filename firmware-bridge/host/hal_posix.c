/* hal.h on Linux: UART = a raw tty, outputs and traces = stdout lines "<ms> <what> <value>". */
#define _DEFAULT_SOURCE
#include "hal_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../src/hal.h"

#define PASSAGE_PULSE_MS 50u
#define REOPEN_EVERY_MS 100u

static const char *tty_path;
static int tty_fd = -1;
static uint32_t tty_retry_at;
static uint8_t inputs;
static int passage_active;
static uint32_t passage_until;
static uint8_t reset_cause;
static struct timespec started;
static uint32_t tick_ms;

static void say(const char *what, long value)
{
	printf("%lu %s %ld\n", (unsigned long)hal_millis(), what, value);
}

static int open_tty(void)
{
	struct termios t;
	int fd = open(tty_path, O_RDWR | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetispeed(&t, B115200);
		cfsetospeed(&t, B115200);
		t.c_cflag |= CLOCAL | CREAD;
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

void hal_posix_setup(const char *path)
{
	tty_path = path;
	clock_gettime(CLOCK_MONOTONIC, &started);
}

int hal_posix_tty_fd(void)
{
	return tty_fd;
}

void hal_posix_tty_lost(void)
{
	if (tty_fd < 0)
		return;
	close(tty_fd);
	tty_fd = -1;
	tty_retry_at = hal_millis() + REOPEN_EVERY_MS;
	say("tty", 0);
}

static uint32_t clock_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint32_t)((now.tv_sec - started.tv_sec) * 1000 + (now.tv_nsec - started.tv_nsec) / 1000000);
}

void hal_posix_tick(void)
{
	uint32_t now = clock_ms();

	tick_ms = now;

	if (tty_fd < 0 && (int32_t)(now - tty_retry_at) >= 0) {
		tty_fd = open_tty();
		tty_retry_at = now + REOPEN_EVERY_MS;
		if (tty_fd >= 0)
			say("tty", 1);
	}
	if (passage_active && (int32_t)(now - passage_until) >= 0) {
		passage_active = 0;
		inputs &= (uint8_t)~HAL_IN_PASSAGE;
	}
}

void hal_posix_passage(void)
{
	inputs |= HAL_IN_PASSAGE;
	passage_active = 1;
	passage_until = hal_millis() + PASSAGE_PULSE_MS;
}

void hal_posix_set_input(uint8_t bit, int level)
{
	if (level)
		inputs |= bit;
	else
		inputs &= (uint8_t)~bit;
}

void hal_posix_set_reset_cause(uint8_t cause)
{
	reset_cause = cause;
}

/*
 * One time per tick, set by hal_posix_tick(): the firmware's decisions and the stdout
 * timestamps then share a clock, so a 300 ms pulse shows as at least 300 ms even when this
 * process is descheduled between deciding and printing.
 */
uint32_t hal_millis(void)
{
	return tick_ms;
}

void hal_uart_init(void)
{
	/* A board reset loses whatever sat in the UART FIFOs. */
	if (tty_fd >= 0) {
		tcflush(tty_fd, TCIOFLUSH);
		return;
	}
	tty_fd = open_tty();
	if (tty_fd < 0)
		tty_retry_at = hal_millis() + REOPEN_EVERY_MS;
}

size_t hal_uart_read(uint8_t *buf, size_t cap)
{
	ssize_t n;

	if (tty_fd < 0)
		return 0;
	n = read(tty_fd, buf, cap);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		hal_posix_tty_lost();
	return n > 0 ? (size_t)n : 0;
}

void hal_uart_write(const uint8_t *buf, size_t len)
{
	/* Like a UART with nobody listening: bytes that do not fit are lost, the receiver resyncs on 0x00. */
	if (tty_fd >= 0 && write(tty_fd, buf, len) < 0 && errno != EAGAIN && errno != EINTR)
		hal_posix_tty_lost();
}

void hal_relay(int on)
{
	say("relay", on);
}

void hal_led_red(int on)
{
	say("led red", on);
}

void hal_led_green(int on)
{
	say("led green", on);
}

void hal_buzzer(int on)
{
	say("buzzer", on);
}

uint8_t hal_read_inputs(void)
{
	return inputs;
}

uint8_t hal_reset_cause(void)
{
	return reset_cause;
}

void hal_trace(const char *event, long value)
{
	say(event, value);
}
