#include "minijson.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *p;
	const char *end;
} cur_t;

static void ws(cur_t *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
		c->p++;
}

static int lit(cur_t *c, char ch)
{
	ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return 1;
	}
	return 0;
}

static int str(cur_t *c, char *out, size_t cap)
{
	size_t n = 0;
	if (!lit(c, '"'))
		return 0;
	while (c->p < c->end && *c->p != '"') {
		if (n + 1 >= cap)
			return 0;
		/* Only \" and \\ occur in vectors.json names. */
		if (*c->p == '\\' && c->p + 1 < c->end && (c->p[1] == '"' || c->p[1] == '\\'))
			c->p++;
		else if (*c->p == '\\')
			return 0;
		out[n++] = *c->p++;
	}
	if (c->p >= c->end)
		return 0;
	c->p++;
	out[n] = 0;
	return 1;
}

static int num(cur_t *c, long *out)
{
	char *stop;
	ws(c);
	*out = strtol(c->p, &stop, 10);
	if (stop == c->p || stop > c->end)
		return 0;
	c->p = stop;
	return 1;
}

static int skip(cur_t *c, int depth)
{
	char tmp[MJ_VAL];
	long n;
	if (depth > 8)
		return 0;
	ws(c);
	if (c->p >= c->end)
		return 0;
	if (*c->p == '"')
		return str(c, tmp, sizeof tmp);
	if (*c->p == '{' || *c->p == '[') {
		char close = *c->p == '{' ? '}' : ']';
		int is_obj = *c->p == '{';
		c->p++;
		if (lit(c, close))
			return 1;
		do {
			if (is_obj && (!str(c, tmp, sizeof tmp) || !lit(c, ':')))
				return 0;
			if (!skip(c, depth + 1))
				return 0;
		} while (lit(c, ','));
		return lit(c, close);
	}
	if (strncmp(c->p, "true", 4) == 0 || strncmp(c->p, "null", 4) == 0) {
		c->p += 4;
		return 1;
	}
	if (strncmp(c->p, "false", 5) == 0) {
		c->p += 5;
		return 1;
	}
	return num(c, &n);
}

static int kv_value(cur_t *c, mj_kv_t *kv)
{
	ws(c);
	if (c->p < c->end && *c->p == '"') {
		kv->is_str = 1;
		return str(c, kv->str, sizeof kv->str);
	}
	kv->is_str = 0;
	return num(c, &kv->num);
}

static int flat_object(cur_t *c, mj_kv_t *kv, int *n)
{
	*n = 0;
	if (!lit(c, '{'))
		return 0;
	if (lit(c, '}'))
		return 1;
	do {
		if (*n >= MJ_MAX_KV || !str(c, kv[*n].key, sizeof kv[*n].key) || !lit(c, ':'))
			return 0;
		if (!kv_value(c, &kv[*n]))
			return 0;
		(*n)++;
	} while (lit(c, ','));
	return lit(c, '}');
}

static int record(cur_t *c, mj_record_t *r)
{
	char key[MJ_KEY];
	memset(r, 0, sizeof *r);
	if (!lit(c, '{'))
		return 0;
	if (lit(c, '}'))
		return 1;
	do {
		if (!str(c, key, sizeof key) || !lit(c, ':'))
			return 0;
		if (strcmp(key, "message") == 0) {
			if (!flat_object(c, r->msg, &r->nmsg))
				return 0;
		} else {
			ws(c);
			if (c->p < c->end && *c->p == '"' && r->ntop < MJ_MAX_KV) {
				strcpy(r->top[r->ntop].key, key);
				if (!kv_value(c, &r->top[r->ntop]))
					return 0;
				r->ntop++;
			} else if (!skip(c, 1)) {
				return 0;
			}
		}
	} while (lit(c, ','));
	return lit(c, '}');
}

int mj_walk(const char *text, size_t len, mj_handler handler, void *ctx)
{
	static mj_record_t rec;
	char section[MJ_KEY];
	cur_t c;
	c.p = text;
	c.end = text + len;
	if (!lit(&c, '{'))
		return -1;
	do {
		if (!str(&c, section, sizeof section) || !lit(&c, ':'))
			return -1;
		ws(&c);
		if (c.p < c.end && *c.p == '[') {
			c.p++;
			if (lit(&c, ']'))
				continue;
			do {
				if (!record(&c, &rec))
					return -1;
				handler(section, &rec, ctx);
			} while (lit(&c, ','));
			if (!lit(&c, ']'))
				return -1;
		} else if (!skip(&c, 1)) {
			return -1;
		}
	} while (lit(&c, ','));
	return lit(&c, '}') ? 0 : -1;
}

const mj_kv_t *mj_find(const mj_kv_t *kv, int n, const char *key)
{
	int i;
	for (i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return &kv[i];
	return NULL;
}
