#include "protocol.h"

#include <string.h>

static const bridge_type_info_t TYPES[] = {
	{ BRIDGE_HELLO, "HELLO", 1, { { "failMode", 1 } } },
	{ BRIDGE_HEARTBEAT, "HEARTBEAT", 1, { { "timeoutMs", 2 } } },
	{ BRIDGE_GRANT, "GRANT", 2, { { "direction", 1 }, { "pulseMs", 2 } } },
	{ BRIDGE_DENY, "DENY", 1, { { "pattern", 1 } } },
	{ BRIDGE_LED, "LED", 2, { { "color", 1 }, { "durationMs", 2 } } },
	{ BRIDGE_BUZ, "BUZ", 3, { { "onMs", 2 }, { "offMs", 2 }, { "count", 1 } } },
	{ BRIDGE_FREE, "FREE", 1, { { "on", 1 } } },
	{ BRIDGE_BOOT, "BOOT", 3, { { "fwMajor", 1 }, { "fwMinor", 1 }, { "resetCause", 1 } } },
	{ BRIDGE_STATUS, "STATUS", 2, { { "inputs", 1 }, { "outputs", 1 } } },
	{ BRIDGE_PASSAGE, "PASSAGE", 1, { { "direction", 1 } } },
	{ BRIDGE_FIRE, "FIRE", 1, { { "active", 1 } } },
	{ BRIDGE_ACK, "ACK", 0, { { 0, 0 } } },
	{ BRIDGE_NAK, "NAK", 1, { { "reason", 1 } } },
};

#define NTYPES (sizeof(TYPES) / sizeof(TYPES[0]))

uint16_t crc16_ccitt_false(const uint8_t *data, size_t len)
{
	uint16_t crc = 0xFFFFu;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		crc ^= (uint16_t)((uint16_t)data[i] << 8);
		for (b = 0; b < 8; b++)
			crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
	}
	return crc;
}

int cobs_encode(const uint8_t *in, size_t len, uint8_t *out, size_t out_cap)
{
	size_t code_at = 0, o = 1, i;
	uint8_t code = 1;

	if (out_cap < 1)
		return -1;
	for (i = 0; i < len; i++) {
		if (in[i] == 0) {
			out[code_at] = code;
			code_at = o++;
			code = 1;
		} else {
			if (o >= out_cap)
				return -1;
			out[o++] = in[i];
			code++;
			if (code == 0xFF && i + 1 < len) {
				out[code_at] = code;
				code_at = o++;
				code = 1;
			}
		}
		if (o > out_cap)
			return -1;
	}
	out[code_at] = code;
	return (int)o;
}

int cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t out_cap)
{
	size_t i = 0, o = 0, k;

	while (i < len) {
		uint8_t code = in[i++];
		if (code == 0 || i + code - 1u > len)
			return -1;
		for (k = 1; k < code; k++) {
			if (in[i] == 0)
				return -1;
			if (o >= out_cap)
				return -2;
			out[o++] = in[i++];
		}
		if (code != 0xFF && i < len) {
			if (o >= out_cap)
				return -2;
			out[o++] = 0;
		}
	}
	return (int)o;
}

const bridge_type_info_t *bridge_type_by_code(uint8_t code)
{
	size_t i;
	for (i = 0; i < NTYPES; i++)
		if (TYPES[i].code == code)
			return &TYPES[i];
	return NULL;
}

const bridge_type_info_t *bridge_type_by_name(const char *name)
{
	size_t i;
	for (i = 0; i < NTYPES; i++)
		if (strcmp(TYPES[i].name, name) == 0)
			return &TYPES[i];
	return NULL;
}

uint8_t bridge_payload_len(const bridge_type_info_t *info)
{
	uint8_t n = 0, i;
	for (i = 0; i < info->nfields; i++)
		n = (uint8_t)(n + info->fields[i].width);
	return n;
}

static unsigned field_offset(const bridge_type_info_t *info, unsigned idx)
{
	unsigned off = 0, i;
	for (i = 0; i < idx; i++)
		off += info->fields[i].width;
	return off;
}

uint16_t bridge_field_get(const bridge_frame_t *f, const bridge_type_info_t *info, unsigned idx)
{
	unsigned off = field_offset(info, idx);
	if (info->fields[idx].width == 1)
		return f->payload[off];
	return (uint16_t)(f->payload[off] | (f->payload[off + 1] << 8));
}

void bridge_field_set(bridge_frame_t *f, const bridge_type_info_t *info, unsigned idx, uint16_t value)
{
	unsigned off = field_offset(info, idx);
	f->payload[off] = (uint8_t)(value & 0xFF);
	if (info->fields[idx].width == 2)
		f->payload[off + 1] = (uint8_t)(value >> 8);
}

int bridge_frame_encode(const bridge_frame_t *f, uint8_t *out, size_t out_cap)
{
	uint8_t raw[BRIDGE_MAX_RAW];
	size_t n = BRIDGE_HEADER_LEN + f->len;
	uint16_t crc;
	int enc;

	if (f->len > BRIDGE_MAX_PAYLOAD)
		return BRIDGE_ERR_OVERSIZE;
	raw[0] = f->version;
	raw[1] = f->type;
	raw[2] = f->seq;
	raw[3] = f->ack;
	raw[4] = f->len;
	memcpy(raw + BRIDGE_HEADER_LEN, f->payload, f->len);
	crc = crc16_ccitt_false(raw, n);
	raw[n++] = (uint8_t)(crc & 0xFF);
	raw[n++] = (uint8_t)(crc >> 8);
	if (out_cap < 1)
		return BRIDGE_ERR_BUFFER;
	enc = cobs_encode(raw, n, out, out_cap - 1);
	if (enc < 0)
		return BRIDGE_ERR_BUFFER;
	out[enc] = 0;
	return enc + 1;
}

int bridge_frame_decode(const uint8_t *wire, size_t len, bridge_frame_t *f)
{
	uint8_t raw[BRIDGE_MAX_RAW];
	const bridge_type_info_t *info;
	int n;

	if (len == 0 || wire[len - 1] != 0)
		return BRIDGE_ERR_TRUNCATED;
	if (len - 1 > BRIDGE_MAX_ENCODED)
		return BRIDGE_ERR_OVERSIZE;
	n = cobs_decode(wire, len - 1, raw, sizeof raw);
	if (n == -2)
		return BRIDGE_ERR_OVERSIZE;
	if (n < 0)
		return BRIDGE_ERR_BAD_COBS;
	if ((size_t)n < BRIDGE_HEADER_LEN + BRIDGE_CRC_LEN)
		return BRIDGE_ERR_TRUNCATED;
	if (crc16_ccitt_false(raw, (size_t)n - 2) != (uint16_t)(raw[n - 2] | (raw[n - 1] << 8)))
		return BRIDGE_ERR_BAD_CRC;
	if (raw[0] != BRIDGE_VERSION)
		return BRIDGE_ERR_BAD_VERSION;
	if ((size_t)raw[4] + BRIDGE_HEADER_LEN + BRIDGE_CRC_LEN != (size_t)n)
		return BRIDGE_ERR_LENGTH_MISMATCH;
	info = bridge_type_by_code(raw[1]);
	if (info == NULL)
		return BRIDGE_ERR_UNKNOWN_TYPE;
	if (raw[4] != bridge_payload_len(info))
		return BRIDGE_ERR_BAD_PAYLOAD;
	f->version = raw[0];
	f->type = raw[1];
	f->seq = raw[2];
	f->ack = raw[3];
	f->len = raw[4];
	memcpy(f->payload, raw + BRIDGE_HEADER_LEN, f->len);
	return BRIDGE_OK;
}

const char *bridge_err_name(int err)
{
	switch (err) {
	case BRIDGE_OK: return "ok";
	case BRIDGE_ERR_TRUNCATED: return "truncated";
	case BRIDGE_ERR_OVERSIZE: return "oversize";
	case BRIDGE_ERR_BAD_COBS: return "bad_cobs";
	case BRIDGE_ERR_BAD_CRC: return "bad_crc";
	case BRIDGE_ERR_BAD_VERSION: return "bad_version";
	case BRIDGE_ERR_LENGTH_MISMATCH: return "length_mismatch";
	case BRIDGE_ERR_UNKNOWN_TYPE: return "unknown_type";
	case BRIDGE_ERR_BAD_PAYLOAD: return "bad_payload";
	default: return "buffer";
	}
}

int bridge_command_values_ok(const bridge_frame_t *f)
{
	const uint8_t *p = f->payload;
	uint16_t timeout;

	switch (f->type) {
	case BRIDGE_HELLO: return p[0] <= 1;
	case BRIDGE_HEARTBEAT:
		timeout = (uint16_t)(p[0] | (p[1] << 8));
		return timeout >= BRIDGE_HEARTBEAT_MIN_MS && timeout <= BRIDGE_HEARTBEAT_MAX_MS;
	case BRIDGE_GRANT: return p[0] <= 1;
	case BRIDGE_DENY: return p[0] <= BRIDGE_DENY_PATTERN_MAX;
	case BRIDGE_LED: return p[0] <= 3;
	case BRIDGE_FREE: return p[0] <= 1;
	default: return 1;
	}
}

const char *bridge_nak_name(uint8_t reason)
{
	switch (reason) {
	case BRIDGE_NAK_NOT_READY: return "not_ready";
	case BRIDGE_NAK_BAD_PAYLOAD: return "bad_payload";
	case BRIDGE_NAK_UNKNOWN_TYPE: return "unknown_type";
	case BRIDGE_NAK_FIRE_ACTIVE: return "fire_active";
	default: return "unknown";
	}
}
