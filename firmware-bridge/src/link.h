/* The board's end of the serial link: frame reassembly, answers, and stop-and-wait for board events. */
#ifndef BRIDGE_LINK_H
#define BRIDGE_LINK_H

#include <stdint.h>

#include "protocol.h"

#define LINK_QUEUE_LEN 8u
#define LINK_RETRY_MS 100u
#define LINK_EVENT_MAX_PAYLOAD 3u

typedef struct {
	uint8_t type;
	uint8_t len;
	uint8_t payload[LINK_EVENT_MAX_PAYLOAD];
} link_event_t;

typedef struct {
	uint8_t rx[BRIDGE_MAX_WIRE];
	uint8_t rx_len;
	uint8_t rx_discarding; /* overflowed: drop everything up to the next 0x00 */

	uint8_t tx[BRIDGE_MAX_WIRE]; /* the event in flight, kept to retransmit the same bytes */
	uint8_t tx_len;
	uint8_t tx_seq;
	uint8_t in_flight;
	uint32_t tx_at;
	uint8_t next_seq;
	link_event_t queue[LINK_QUEUE_LEN];
	uint8_t queue_head;
	uint8_t queue_count;

	uint8_t peer_known; /* peer_seq is the last seq accepted from the host */
	uint8_t peer_seq;
	uint8_t peer_answer; /* 0 = ACK, else the NAK reason */
} link_t;

void link_init(link_t *l);

/* Feeds one received byte; returns 1 and fills *f when it completes a frame that decodes. */
int link_rx_byte(link_t *l, uint8_t byte, bridge_frame_t *f);

/* Answers the host's seq with ACK (nak_reason 0) or NAK, and remembers both for duplicates. */
void link_answer(link_t *l, uint8_t seq, uint8_t nak_reason);
/* 1 when seq is the host's last accepted seq; the remembered answer has then been sent again. */
int link_answer_duplicate(link_t *l, uint8_t seq);
void link_forget_peer(link_t *l);

/* Returns 0 when the queue is full (the event is dropped). */
int link_queue_event(link_t *l, uint8_t type, const uint8_t *payload, uint8_t len);
/* A host ACK/NAK: ends the event in flight when it answers it. */
void link_on_answer(link_t *l, uint8_t acked_seq);
void link_drop_events(link_t *l);
int link_idle(const link_t *l);
/* Sends the next queued event when nothing is in flight, or retransmits the one in flight when due. */
void link_poll(link_t *l, uint32_t now);

#endif
