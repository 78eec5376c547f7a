#include "firmware.h"

#include <string.h>

#include "hal.h"

#define RX_CHUNK 64u
#define RX_CHUNKS_PER_POLL 8u

static int reached(uint32_t now, uint32_t deadline)
{
	return (int32_t)(now - deadline) >= 0;
}

static void queue_event(firmware_t *fw, uint8_t type, const uint8_t *payload, uint8_t len)
{
	if (!link_queue_event(&fw->link, type, payload, len))
		hal_trace("queue_full", type);
}

static uint8_t wanted_outputs(firmware_t *fw, uint32_t now)
{
	uint8_t out = 0;
	int fire = (fw->inputs & HAL_IN_FIRE) != 0;

	if (fw->pulse_on || fire || fw->host_free || (!fw->online && fw->fail_mode == 1))
		out |= FW_OUT_RELAY;
	if (signal_level(&fw->led, now)) {
		if (fw->led.mask & SIGNAL_RED)
			out |= FW_OUT_RED;
		if (fw->led.mask & SIGNAL_GREEN)
			out |= FW_OUT_GREEN;
	} else if (!fw->led.active) {
		if (fire || fw->host_free)
			out |= FW_OUT_GREEN;
		else if (!fw->online)
			out |= FW_OUT_RED;
	}
	if (signal_level(&fw->buzzer, now))
		out |= FW_OUT_BUZZER;
	return out;
}

static void apply_outputs(firmware_t *fw, uint8_t out, int force)
{
	uint8_t changed = (uint8_t)(force ? 0xFFu : out ^ fw->outputs);

	if (changed & FW_OUT_RELAY) {
		hal_relay((out & FW_OUT_RELAY) != 0);
		fw->status_pending = 1;
	}
	if (changed & FW_OUT_GREEN)
		hal_led_green((out & FW_OUT_GREEN) != 0);
	if (changed & FW_OUT_RED)
		hal_led_red((out & FW_OUT_RED) != 0);
	if (changed & FW_OUT_BUZZER)
		hal_buzzer((out & FW_OUT_BUZZER) != 0);
	fw->outputs = out;
}

void firmware_init(firmware_t *fw)
{
	uint8_t boot[3];
	uint32_t now;
	unsigned i;

	memset(fw, 0, sizeof *fw);
	/* Fail-safe rule 1: relay and indicators off before the UART can deliver anything. */
	apply_outputs(fw, 0, 1);
	hal_uart_init();
	link_init(&fw->link);
	now = hal_millis();
	/* A sensor already blocked at boot is no passage; an asserted fire input must be reported. */
	fw->raw_inputs = hal_read_inputs();
	fw->inputs = (uint8_t)(fw->raw_inputs & (HAL_IN_PASSAGE | HAL_IN_DOOR));
	for (i = 0; i < FW_INPUT_COUNT; i++)
		fw->raw_since[i] = now;
	boot[0] = FW_VERSION_MAJOR;
	boot[1] = FW_VERSION_MINOR;
	boot[2] = hal_reset_cause();
	queue_event(fw, BRIDGE_BOOT, boot, 3);
	/* The host learns the state from the STATUS after its HELLO, not from one after BOOT. */
	fw->status_pending = 0;
	hal_trace("boot", boot[2]);
}

static void go_offline(firmware_t *fw)
{
	fw->watchdog_armed = 0;
	fw->online = 0;
	fw->pulse_on = 0;
	fw->host_free = 0;
	signal_stop(&fw->led);
	link_drop_events(&fw->link);
	hal_trace("online", 0);
}

static void start_grant(firmware_t *fw, const bridge_frame_t *f, uint32_t now)
{
	uint16_t pulse_ms = (uint16_t)(f->payload[1] | (f->payload[2] << 8));

	fw->last_direction = f->payload[0];
	fw->pulse_on = pulse_ms > 0;
	fw->pulse_end = now + pulse_ms;
	signal_start(&fw->led, SIGNAL_GREEN, pulse_ms, 0, 1, now);
	signal_start(&fw->buzzer, 0, FW_GRANT_BEEP_MS, 0, 1, now);
	hal_trace("grant", fw->last_direction);
}

static void show_led(firmware_t *fw, uint8_t color, uint16_t duration_ms, uint32_t now)
{
	uint8_t mask = (uint8_t)(((color & 1u) ? SIGNAL_RED : 0u) | ((color & 2u) ? SIGNAL_GREEN : 0u));

	if (color == 0)
		signal_stop(&fw->led);
	else if (duration_ms == 0)
		signal_steady(&fw->led, mask, now);
	else
		signal_start(&fw->led, mask, duration_ms, 0, 1, now);
}

/* Acts on one fresh command; returns 0 for ACK or the NAK reason. Check order: PROTOCOL.md. */
static uint8_t run_command(firmware_t *fw, const bridge_frame_t *f, uint32_t now)
{
	const uint8_t *p = f->payload;

	if (f->type & 0x80u)
		return BRIDGE_NAK_UNKNOWN_TYPE;
	if (!bridge_command_values_ok(f))
		return BRIDGE_NAK_BAD_PAYLOAD;
	if (f->type == BRIDGE_HELLO) {
		fw->hello_seen = 1;
		fw->fail_mode = p[0];
		fw->host_free = 0;
		fw->status_pending = 1;
		link_forget_peer(&fw->link);
		hal_trace("hello", fw->fail_mode);
		return 0;
	}
	if (f->type == BRIDGE_HEARTBEAT) {
		if (!fw->hello_seen)
			return BRIDGE_NAK_NOT_READY;
		fw->watchdog_ms = (uint16_t)(p[0] | (p[1] << 8));
		fw->watchdog_armed = 1;
		fw->watchdog_deadline = now + fw->watchdog_ms;
		if (!fw->online) {
			fw->online = 1;
			hal_trace("online", 1);
		}
		return 0;
	}
	if (!fw->online)
		return BRIDGE_NAK_NOT_READY;
	switch (f->type) {
	case BRIDGE_GRANT:
		start_grant(fw, f, now);
		break;
	case BRIDGE_DENY:
		if (fw->inputs & HAL_IN_FIRE)
			return BRIDGE_NAK_FIRE_ACTIVE;
		signal_deny(&fw->led, &fw->buzzer, p[0], now);
		hal_trace("deny", p[0]);
		break;
	case BRIDGE_LED:
		show_led(fw, p[0], (uint16_t)(p[1] | (p[2] << 8)), now);
		break;
	case BRIDGE_BUZ:
		if (p[4] == 0)
			signal_stop(&fw->buzzer);
		else
			signal_start(&fw->buzzer, 0, (uint16_t)(p[0] | (p[1] << 8)), (uint16_t)(p[2] | (p[3] << 8)), p[4], now);
		break;
	case BRIDGE_FREE:
		fw->host_free = p[0];
		hal_trace("free", p[0]);
		break;
	default:
		return BRIDGE_NAK_UNKNOWN_TYPE;
	}
	return 0;
}

static void handle_frame(firmware_t *fw, const bridge_frame_t *f, uint32_t now)
{
	if (fw->watchdog_armed)
		fw->watchdog_deadline = now + fw->watchdog_ms;
	if (f->type == BRIDGE_ACK || f->type == BRIDGE_NAK) {
		link_on_answer(&fw->link, f->ack);
		return;
	}
	/* A command with seq 0 cannot be told from a duplicate or answered: treat it as noise. */
	if (f->seq == 0)
		return;
	if (f->type != BRIDGE_HELLO && link_answer_duplicate(&fw->link, f->seq))
		return;
	link_answer(&fw->link, f->seq, run_command(fw, f, now));
}

static void on_input_change(firmware_t *fw, uint8_t bit, int level)
{
	uint8_t v = (uint8_t)level;

	fw->status_pending = 1;
	if (bit == HAL_IN_PASSAGE && level) {
		queue_event(fw, BRIDGE_PASSAGE, &fw->last_direction, 1);
		hal_trace("passage", fw->last_direction);
	} else if (bit == HAL_IN_FIRE) {
		queue_event(fw, BRIDGE_FIRE, &v, 1);
		hal_trace("fire", v);
	}
}

/* Per input: a new level counts once it has held for FW_DEBOUNCE_MS. */
static void debounce_inputs(firmware_t *fw, uint32_t now)
{
	uint8_t raw = hal_read_inputs();
	unsigned i;

	for (i = 0; i < FW_INPUT_COUNT; i++) {
		uint8_t bit = (uint8_t)(1u << i);
		if ((raw ^ fw->raw_inputs) & bit) {
			fw->raw_inputs ^= bit;
			fw->raw_since[i] = now;
		} else if (((raw ^ fw->inputs) & bit) && (uint32_t)(now - fw->raw_since[i]) >= FW_DEBOUNCE_MS) {
			fw->inputs ^= bit;
			on_input_change(fw, bit, (fw->inputs & bit) != 0);
		}
	}
}

void firmware_poll(firmware_t *fw)
{
	uint8_t buf[RX_CHUNK];
	bridge_frame_t f;
	uint32_t now = hal_millis();
	size_t n, i;
	unsigned chunks;

	for (chunks = 0; chunks < RX_CHUNKS_PER_POLL; chunks++) {
		n = hal_uart_read(buf, sizeof buf);
		if (n == 0)
			break;
		for (i = 0; i < n; i++)
			if (link_rx_byte(&fw->link, buf[i], &f))
				handle_frame(fw, &f, now);
	}
	debounce_inputs(fw, now);
	if (fw->pulse_on && reached(now, fw->pulse_end))
		fw->pulse_on = 0;
	if (fw->watchdog_armed && reached(now, fw->watchdog_deadline))
		go_offline(fw);
	apply_outputs(fw, wanted_outputs(fw, now), 0);
	if (fw->status_pending && link_idle(&fw->link)) {
		uint8_t status[2];
		status[0] = fw->inputs;
		status[1] = fw->outputs;
		fw->status_pending = 0;
		queue_event(fw, BRIDGE_STATUS, status, 2);
	}
	link_poll(&fw->link, now);
}
