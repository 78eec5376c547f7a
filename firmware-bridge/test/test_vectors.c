/* Checks every case of vectors.json against the C codec, both ways. Usage: test_vectors path/to/vectors.json */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/protocol.h"
#include "minijson.h"

typedef struct {
	int checked;
	int failed;
} tally_t;

static unsigned char file_buf[1 << 17];

static int unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex), i;
	if (n % 2 || n / 2 > cap)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

static void tohex(const uint8_t *b, size_t n, char *out)
{
	size_t i;
	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

static const char *top(const mj_record_t *r, const char *key)
{
	const mj_kv_t *kv = mj_find(r->top, r->ntop, key);
	return kv && kv->is_str ? kv->str : NULL;
}

static void fail(tally_t *t, const char *section, const char *name, const char *why)
{
	t->failed++;
	fprintf(stderr, "FAIL %s/%s: %s\n", section, name ? name : "?", why);
}

static void check_crc(const mj_record_t *r, tally_t *t, const char *name)
{
	uint8_t in[256], want[2];
	int n = unhex(top(r, "input") ? top(r, "input") : "", in, sizeof in);
	if (n < 0 || unhex(top(r, "crc") ? top(r, "crc") : "", want, 2) != 2)
		return fail(t, "crc", name, "malformed case");
	if (crc16_ccitt_false(in, (size_t)n) != (uint16_t)((want[0] << 8) | want[1]))
		return fail(t, "crc", name, "crc differs");
}

static void check_cobs(const mj_record_t *r, tally_t *t, const char *name)
{
	uint8_t dec[512], enc[512], out[512];
	int nd = unhex(top(r, "decoded") ? top(r, "decoded") : "x", dec, sizeof dec);
	int ne = unhex(top(r, "encoded") ? top(r, "encoded") : "x", enc, sizeof enc);
	int n;
	if (nd < 0 || ne < 0)
		return fail(t, "cobs", name, "malformed case");
	n = cobs_encode(dec, (size_t)nd, out, sizeof out);
	if (n != ne || memcmp(out, enc, (size_t)ne) != 0)
		return fail(t, "cobs", name, "encode differs");
	n = cobs_decode(enc, (size_t)ne, out, sizeof out);
	if (n != nd || memcmp(out, dec, (size_t)nd) != 0)
		return fail(t, "cobs", name, "decode differs");
}

/* Valid and refused vectors are both well-formed; refused ones carry values the board NAKs (bad_payload). */
static void check_wellformed(const mj_record_t *r, tally_t *t, const char *section, const char *name)
{
	const mj_kv_t *type = mj_find(r->msg, r->nmsg, "type");
	const mj_kv_t *seq = mj_find(r->msg, r->nmsg, "seq");
	const mj_kv_t *ack = mj_find(r->msg, r->nmsg, "ack");
	const bridge_type_info_t *info = type && type->is_str ? bridge_type_by_name(type->str) : NULL;
	bridge_frame_t f, d;
	uint8_t want[BRIDGE_MAX_WIRE + 8], got[BRIDGE_MAX_WIRE];
	char hex[2 * BRIDGE_MAX_WIRE + 1];
	int nw, n, rc;
	unsigned i;

	if (!info || !seq || !ack || r->nmsg != 3 + info->nfields)
		return fail(t, section, name, "message does not match the type table");
	memset(&f, 0, sizeof f);
	f.version = BRIDGE_VERSION;
	f.type = info->code;
	f.seq = (uint8_t)seq->num;
	f.ack = (uint8_t)ack->num;
	f.len = bridge_payload_len(info);
	for (i = 0; i < info->nfields; i++) {
		const mj_kv_t *v = mj_find(r->msg, r->nmsg, info->fields[i].name);
		if (!v || v->is_str)
			return fail(t, section, name, "missing field");
		bridge_field_set(&f, info, i, (uint16_t)v->num);
	}
	nw = unhex(top(r, "frame") ? top(r, "frame") : "x", want, sizeof want);
	n = bridge_frame_encode(&f, got, sizeof got);
	if (nw < 0 || n != nw || memcmp(got, want, (size_t)n) != 0) {
		tohex(got, n > 0 ? (size_t)n : 0, hex);
		fprintf(stderr, "  encoded %s\n", hex);
		return fail(t, section, name, "encode differs");
	}
	rc = bridge_frame_decode(want, (size_t)nw, &d);
	if (rc != BRIDGE_OK)
		return fail(t, section, name, bridge_err_name(rc));
	if (d.type != f.type || d.seq != f.seq || d.ack != f.ack || d.len != f.len)
		return fail(t, section, name, "decoded header differs");
	for (i = 0; i < info->nfields; i++)
		if (bridge_field_get(&d, info, i) != bridge_field_get(&f, info, i))
			return fail(t, section, name, "decoded field differs");
	if (strcmp(section, "valid") == 0 && !bridge_command_values_ok(&d))
		return fail(t, section, name, "values refused");
	if (strcmp(section, "refused") == 0) {
		const char *nak = top(r, "nak");
		if (bridge_command_values_ok(&d))
			return fail(t, section, name, "values accepted");
		if (!nak || strcmp(nak, bridge_nak_name(BRIDGE_NAK_BAD_PAYLOAD)) != 0)
			return fail(t, section, name, "unexpected nak name");
	}
}

static void check_invalid(const mj_record_t *r, tally_t *t, const char *name)
{
	uint8_t wire[600];
	bridge_frame_t d;
	const char *reason = top(r, "reason");
	int n = unhex(top(r, "frame") ? top(r, "frame") : "x", wire, sizeof wire);
	int rc;
	if (n < 0 || !reason)
		return fail(t, "invalid", name, "malformed case");
	rc = bridge_frame_decode(wire, (size_t)n, &d);
	if (strcmp(bridge_err_name(rc), reason) != 0) {
		fprintf(stderr, "  got %s, want %s\n", bridge_err_name(rc), reason);
		return fail(t, "invalid", name, "wrong rejection");
	}
}

static void on_record(const char *section, const mj_record_t *r, void *ctx)
{
	tally_t *t = ctx;
	const char *name = top(r, "name");
	int before = t->failed;
	if (strcmp(section, "crc") == 0)
		check_crc(r, t, name);
	else if (strcmp(section, "cobs") == 0)
		check_cobs(r, t, name);
	else if (strcmp(section, "valid") == 0 || strcmp(section, "refused") == 0)
		check_wellformed(r, t, section, name);
	else if (strcmp(section, "invalid") == 0)
		check_invalid(r, t, name);
	else
		return;
	t->checked++;
	if (t->failed == before)
		printf("ok %s/%s\n", section, name ? name : "?");
}

int main(int argc, char **argv)
{
	tally_t t = { 0, 0 };
	FILE *fp;
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s vectors.json\n", argv[0]);
		return 2;
	}
	fp = fopen(argv[1], "rb");
	if (!fp) {
		perror(argv[1]);
		return 2;
	}
	n = fread(file_buf, 1, sizeof file_buf, fp);
	fclose(fp);
	if (n == sizeof file_buf || mj_walk((const char *)file_buf, n, on_record, &t) != 0) {
		fprintf(stderr, "cannot read %s\n", argv[1]);
		return 2;
	}
	printf("C codec: %d vectors checked, %d failed\n", t.checked, t.failed);
	return t.failed == 0 && t.checked > 0 ? 0 : 1;
}
