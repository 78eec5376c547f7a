#include "link.h"

#include <string.h>

#include "hal.h"

void link_init(link_t *l)
{
	memset(l, 0, sizeof *l);
	l->next_seq = 1;
}

int link_rx_byte(link_t *l, uint8_t byte, bridge_frame_t *f)
{
	int rc;

	if (byte != 0) {
		if (l->rx_discarding)
			return 0;
		/* Keep room for the delimiter: a frame that cannot fit is oversize anyway. */
		if (l->rx_len >= BRIDGE_MAX_WIRE - 1u) {
			l->rx_discarding = 1;
			l->rx_len = 0;
			return 0;
		}
		l->rx[l->rx_len++] = byte;
		return 0;
	}
	if (l->rx_discarding) {
		l->rx_discarding = 0;
		return 0;
	}
	l->rx[l->rx_len++] = 0;
	rc = bridge_frame_decode(l->rx, l->rx_len, f);
	l->rx_len = 0;
	return rc == BRIDGE_OK;
}

static void send_answer(uint8_t seq, uint8_t nak_reason)
{
	bridge_frame_t f;
	uint8_t wire[BRIDGE_MAX_WIRE];
	int n;

	memset(&f, 0, sizeof f);
	f.version = BRIDGE_VERSION;
	f.type = nak_reason ? BRIDGE_NAK : BRIDGE_ACK;
	f.ack = seq;
	f.len = nak_reason ? 1 : 0;
	f.payload[0] = nak_reason;
	n = bridge_frame_encode(&f, wire, sizeof wire);
	if (n > 0)
		hal_uart_write(wire, (size_t)n);
}

void link_answer(link_t *l, uint8_t seq, uint8_t nak_reason)
{
	l->peer_known = 1;
	l->peer_seq = seq;
	l->peer_answer = nak_reason;
	send_answer(seq, nak_reason);
}

int link_answer_duplicate(link_t *l, uint8_t seq)
{
	if (!l->peer_known || l->peer_seq != seq)
		return 0;
	send_answer(seq, l->peer_answer);
	return 1;
}

void link_forget_peer(link_t *l)
{
	l->peer_known = 0;
}

int link_queue_event(link_t *l, uint8_t type, const uint8_t *payload, uint8_t len)
{
	link_event_t *e;

	if (l->queue_count >= LINK_QUEUE_LEN || len > LINK_EVENT_MAX_PAYLOAD)
		return 0;
	e = &l->queue[(l->queue_head + l->queue_count) % LINK_QUEUE_LEN];
	e->type = type;
	e->len = len;
	memcpy(e->payload, payload, len);
	l->queue_count++;
	return 1;
}

void link_on_answer(link_t *l, uint8_t acked_seq)
{
	if (l->in_flight && acked_seq == l->tx_seq)
		l->in_flight = 0;
}

void link_drop_events(link_t *l)
{
	l->in_flight = 0;
	l->queue_count = 0;
}

int link_idle(const link_t *l)
{
	return !l->in_flight && l->queue_count == 0;
}

static void send_next(link_t *l, uint32_t now)
{
	const link_event_t *e = &l->queue[l->queue_head];
	bridge_frame_t f;
	int n;

	memset(&f, 0, sizeof f);
	f.version = BRIDGE_VERSION;
	f.type = e->type;
	f.seq = l->next_seq;
	f.len = e->len;
	memcpy(f.payload, e->payload, e->len);
	l->queue_head = (uint8_t)((l->queue_head + 1u) % LINK_QUEUE_LEN);
	l->queue_count--;
	n = bridge_frame_encode(&f, l->tx, sizeof l->tx);
	if (n <= 0)
		return;
	l->tx_len = (uint8_t)n;
	l->tx_seq = f.seq;
	l->next_seq = (uint8_t)(l->next_seq == 255u ? 1u : l->next_seq + 1u);
	l->in_flight = 1;
	l->tx_at = now;
	hal_uart_write(l->tx, l->tx_len);
}

void link_poll(link_t *l, uint32_t now)
{
	if (!l->in_flight) {
		if (l->queue_count > 0)
			send_next(l, now);
		return;
	}
	if ((uint32_t)(now - l->tx_at) >= LINK_RETRY_MS) {
		l->tx_at = now;
		hal_uart_write(l->tx, l->tx_len);
	}
}
