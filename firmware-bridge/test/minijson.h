/* A reader for vectors.json only: objects, arrays, integers, strings whose only escapes are \" and \\. */
#ifndef MINIJSON_H
#define MINIJSON_H

#include <stddef.h>

#define MJ_MAX_KV 8
#define MJ_KEY 32
#define MJ_VAL 1024

typedef struct {
	char key[MJ_KEY];
	int is_str;
	char str[MJ_VAL];
	long num;
} mj_kv_t;

/* One element of a top-level array: its string members and the members of its "message" object. */
typedef struct {
	mj_kv_t top[MJ_MAX_KV];
	int ntop;
	mj_kv_t msg[MJ_MAX_KV];
	int nmsg;
} mj_record_t;

typedef void (*mj_handler)(const char *section, const mj_record_t *rec, void *ctx);

/* Calls handler for each object of each top-level array. Returns 0, or -1 on a parse error. */
int mj_walk(const char *text, size_t len, mj_handler handler, void *ctx);
const mj_kv_t *mj_find(const mj_kv_t *kv, int n, const char *key);

#endif
