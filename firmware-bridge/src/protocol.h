/* Bridge board wire protocol (see ../PROTOCOL.md). Portable C99: no malloc, no OS calls. */
#ifndef BRIDGE_PROTOCOL_H
#define BRIDGE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define BRIDGE_VERSION 1u
#define BRIDGE_HEADER_LEN 5u
#define BRIDGE_CRC_LEN 2u
#define BRIDGE_MAX_PAYLOAD 32u
#define BRIDGE_MAX_RAW (BRIDGE_HEADER_LEN + BRIDGE_MAX_PAYLOAD + BRIDGE_CRC_LEN)
/* COBS adds one code byte per started 254-byte block; MAX_RAW < 254 so one. */
#define BRIDGE_MAX_ENCODED (BRIDGE_MAX_RAW + 1u)
/* Encoded bytes plus the 0x00 delimiter: size of a receive/transmit buffer. */
#define BRIDGE_MAX_WIRE (BRIDGE_MAX_ENCODED + 1u)

enum bridge_type {
	BRIDGE_HELLO = 0x01,
	BRIDGE_HEARTBEAT = 0x02,
	BRIDGE_GRANT = 0x03,
	BRIDGE_DENY = 0x04,
	BRIDGE_LED = 0x05,
	BRIDGE_BUZ = 0x06,
	BRIDGE_FREE = 0x07,
	BRIDGE_BOOT = 0x81,
	BRIDGE_STATUS = 0x82,
	BRIDGE_PASSAGE = 0x83,
	BRIDGE_FIRE = 0x84,
	BRIDGE_ACK = 0x85,
	BRIDGE_NAK = 0x86
};

/* NAK reasons (payload of a NAK). */
enum bridge_nak {
	BRIDGE_NAK_NOT_READY = 1,
	BRIDGE_NAK_BAD_PAYLOAD = 2,
	BRIDGE_NAK_UNKNOWN_TYPE = 3,
	BRIDGE_NAK_FIRE_ACTIVE = 4
};

#define BRIDGE_DENY_PATTERN_MAX 6u
#define BRIDGE_HEARTBEAT_MIN_MS 100u
#define BRIDGE_HEARTBEAT_MAX_MS 60000u

/* Checked in this order by bridge_frame_decode; the TS codec uses the same order and names. */
enum bridge_err {
	BRIDGE_OK = 0,
	BRIDGE_ERR_TRUNCATED = -1,
	BRIDGE_ERR_OVERSIZE = -2,
	BRIDGE_ERR_BAD_COBS = -3,
	BRIDGE_ERR_BAD_CRC = -4,
	BRIDGE_ERR_BAD_VERSION = -5,
	BRIDGE_ERR_LENGTH_MISMATCH = -6,
	BRIDGE_ERR_UNKNOWN_TYPE = -7,
	BRIDGE_ERR_BAD_PAYLOAD = -8,
	BRIDGE_ERR_BUFFER = -9
};

typedef struct {
	const char *name;
	uint8_t width; /* 1 or 2 bytes, little-endian */
} bridge_field_t;

#define BRIDGE_MAX_FIELDS 3

typedef struct {
	uint8_t code;
	const char *name;
	uint8_t nfields;
	bridge_field_t fields[BRIDGE_MAX_FIELDS];
} bridge_type_info_t;

typedef struct {
	uint8_t version;
	uint8_t type;
	uint8_t seq;
	uint8_t ack;
	uint8_t len;
	uint8_t payload[BRIDGE_MAX_PAYLOAD];
} bridge_frame_t;

uint16_t crc16_ccitt_false(const uint8_t *data, size_t len);

/* Returns encoded length (no delimiter), or -1 if out_cap is too small. */
int cobs_encode(const uint8_t *in, size_t len, uint8_t *out, size_t out_cap);
/* Input excludes the delimiter. Returns decoded length, -1 on malformed input, -2 if out_cap is too small. */
int cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t out_cap);

const bridge_type_info_t *bridge_type_by_code(uint8_t code);
const bridge_type_info_t *bridge_type_by_name(const char *name);
uint8_t bridge_payload_len(const bridge_type_info_t *info);
uint16_t bridge_field_get(const bridge_frame_t *f, const bridge_type_info_t *info, unsigned idx);
void bridge_field_set(bridge_frame_t *f, const bridge_type_info_t *info, unsigned idx, uint16_t value);

/* Writes COBS bytes plus the 0x00 delimiter; returns the wire length or BRIDGE_ERR_BUFFER. */
int bridge_frame_encode(const bridge_frame_t *f, uint8_t *out, size_t out_cap);
/* Input is one whole wire frame including its trailing 0x00. Returns BRIDGE_OK or a BRIDGE_ERR_*. */
int bridge_frame_decode(const uint8_t *wire, size_t len, bridge_frame_t *f);
const char *bridge_err_name(int err);
/* 1 when a decoded frame's field values are in range (PROTOCOL.md "Value ranges"); board events always pass. */
int bridge_command_values_ok(const bridge_frame_t *f);
const char *bridge_nak_name(uint8_t reason);

#endif
