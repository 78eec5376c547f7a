/*
 * The state machine on a fake HAL with a hand-driven clock: exact timings, and a clock that
 * wraps past 2^32 in the middle of a pulse and a watchdog window. Behaviour over a real tty
 * is covered by test/gate/firmware-host.test.ts.
 */
#include <stdio.h>
#include <string.h>

#include "../src/firmware.h"
#include "../src/hal.h"

static uint32_t clock_ms;
static uint8_t rx[256];
static size_t rx_len;
static bridge_frame_t sent[256];
static unsigned nsent;
static int auto_ack;
static int relay, red, calls, relay_off_call, uart_init_call;
static int checks, failures;

#define CHECK(cond) check((cond), #cond, __LINE__)

static void check(int ok, const char *what, int line)
{
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "FAIL line %d: %s (t=%lu)\n", line, what, (unsigned long)clock_ms);
	}
}

uint32_t hal_millis(void) { return clock_ms; }
void hal_uart_init(void) { uart_init_call = ++calls; }
void hal_relay(int on)
{
	relay = on;
	if (!on && relay_off_call == 0)
		relay_off_call = ++calls;
}
void hal_led_red(int on) { red = on; }
void hal_led_green(int on) { (void)on; }
void hal_buzzer(int on) { (void)on; }
uint8_t hal_read_inputs(void) { return 0; }
uint8_t hal_reset_cause(void) { return 0; }
void hal_trace(const char *event, long value) { (void)event, (void)value; }

size_t hal_uart_read(uint8_t *buf, size_t cap)
{
	size_t n = rx_len < cap ? rx_len : cap;
	memcpy(buf, rx, n);
	memmove(rx, rx + n, rx_len - n);
	rx_len -= n;
	return n;
}

static void host_send_ack(uint8_t type, uint8_t seq, uint8_t ack, const uint8_t *payload, uint8_t len);

void hal_uart_write(const uint8_t *buf, size_t len)
{
	bridge_frame_t *f = &sent[nsent];
	if (nsent >= sizeof sent / sizeof sent[0] || bridge_frame_decode(buf, len, f) != BRIDGE_OK)
		return;
	nsent++;
	if (auto_ack && f->seq != 0)
		host_send_ack(BRIDGE_ACK, 0, f->seq, NULL, 0);
}

static firmware_t fw;
static uint8_t host_seq;

static void host_send_ack(uint8_t type, uint8_t seq, uint8_t ack, const uint8_t *payload, uint8_t len)
{
	bridge_frame_t f;
	int n;
	memset(&f, 0, sizeof f);
	f.version = BRIDGE_VERSION;
	f.type = type;
	f.seq = seq;
	f.ack = ack;
	f.len = len;
	if (len > 0)
		memcpy(f.payload, payload, len);
	n = bridge_frame_encode(&f, rx + rx_len, sizeof rx - rx_len);
	if (n > 0)
		rx_len += (size_t)n;
}

static void host_send(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t len)
{
	host_send_ack(type, seq, 0, payload, len);
}

/* Sends a command and polls once; returns the answer: 0 ACK, NAK reason, or -1 none. */
static int command(uint8_t type, const uint8_t *payload, uint8_t len)
{
	unsigned i, before = nsent;
	host_seq = (uint8_t)(host_seq % 255u + 1u);
	host_send(type, host_seq, payload, len);
	firmware_poll(&fw);
	for (i = before; i < nsent; i++)
		if ((sent[i].type == BRIDGE_ACK || sent[i].type == BRIDGE_NAK) && sent[i].ack == host_seq)
			return sent[i].type == BRIDGE_ACK ? 0 : sent[i].payload[0];
	return -1;
}

static void run_until(uint32_t end)
{
	while ((int32_t)(clock_ms - end) < 0) {
		clock_ms++;
		firmware_poll(&fw);
	}
}

static unsigned count_sent(uint8_t type)
{
	unsigned i, n = 0;
	for (i = 0; i < nsent; i++)
		n += sent[i].type == type;
	return n;
}

static void boot_and_retry(void)
{
	clock_ms = 0xFFFFFF00u; /* 256 ms before the wrap */
	firmware_init(&fw);
	CHECK(relay_off_call > 0 && relay_off_call < uart_init_call);
	firmware_poll(&fw);
	CHECK(count_sent(BRIDGE_BOOT) == 1);
	run_until(clock_ms + 99);
	CHECK(count_sent(BRIDGE_BOOT) == 1);
	run_until(clock_ms + 1);
	CHECK(count_sent(BRIDGE_BOOT) == 2);
	CHECK(sent[0].seq == 1 && sent[1].seq == 1);
	host_send_ack(BRIDGE_ACK, 0, 1, NULL, 0);
	run_until(clock_ms + 300);
	CHECK(count_sent(BRIDGE_BOOT) == 2);
	auto_ack = 1;
}

static void grant_pulse_across_the_wrap(void)
{
	uint8_t hello = 0, heartbeat[2] = { 0xE8, 0x03 }, grant[3] = { 0, 0xF4, 0x01 }; /* 1000 ms, 500 ms */
	uint32_t start;

	CHECK(command(BRIDGE_GRANT, grant, 3) == BRIDGE_NAK_NOT_READY);
	CHECK(command(BRIDGE_HELLO, &hello, 1) == 0);
	CHECK(command(BRIDGE_GRANT, grant, 3) == BRIDGE_NAK_NOT_READY); /* HELLO alone: still offline */
	CHECK(command(BRIDGE_HEARTBEAT, heartbeat, 2) == 0);
	CHECK(red == 0);
	start = clock_ms;
	CHECK(command(BRIDGE_GRANT, grant, 3) == 0);
	CHECK(relay == 1);
	run_until(start + 499);
	CHECK(relay == 1);
	run_until(start + 500);
	CHECK(relay == 0);
	CHECK(clock_ms < 0x1000u); /* the pulse did cross the wrap */
}

static void watchdog_expires_exactly(void)
{
	uint8_t hello = 0, heartbeat[2] = { 0xE8, 0x03 }, deny = 5;
	uint32_t last;

	CHECK(command(BRIDGE_HEARTBEAT, heartbeat, 2) == 0);
	last = clock_ms;
	CHECK(command(BRIDGE_DENY, &deny, 1) == 0);
	run_until(last + 999);
	CHECK(fw.online == 1);
	run_until(last + 1000);
	CHECK(fw.online == 0 && red == 1);
	CHECK(command(BRIDGE_DENY, &deny, 1) == BRIDGE_NAK_NOT_READY);
	CHECK(command(BRIDGE_HELLO, &hello, 1) == 0);
	CHECK(fw.online == 0);
	CHECK(command(BRIDGE_HEARTBEAT, heartbeat, 2) == 0);
	CHECK(fw.online == 1 && red == 0);
}

static void deny_signal_lengths(void)
{
	uint8_t pattern = 0, heartbeat[2] = { 0x60, 0xEA }; /* 60000 ms */
	uint32_t start;

	CHECK(command(BRIDGE_HEARTBEAT, heartbeat, 2) == 0);
	start = clock_ms;
	CHECK(command(BRIDGE_DENY, &pattern, 1) == 0 && red == 1);
	run_until(start + 799);
	CHECK(red == 1);
	run_until(start + 800);
	CHECK(red == 0);
	pattern = 2;
	start = clock_ms;
	CHECK(command(BRIDGE_DENY, &pattern, 1) == 0 && red == 1);
	run_until(start + 150);
	CHECK(red == 0);
	run_until(start + 300);
	CHECK(red == 1);
	run_until(start + 450);
	CHECK(red == 0);
	run_until(start + 2000);
	CHECK(red == 0);
}

int main(void)
{
	boot_and_retry();
	grant_pulse_across_the_wrap();
	watchdog_expires_exactly();
	deny_signal_lengths();
	printf("firmware: %d checks, %d failed (state %u bytes)\n", checks, failures, (unsigned)sizeof(firmware_t));
	return failures == 0 ? 0 : 1;
}
