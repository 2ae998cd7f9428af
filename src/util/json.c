/*
 * json.c - guarded parsing and stable printing of JSON. Pure: no I/O.
 */
#include "git-session/json.h"
#include "git-session/util.h"

#include <ctype.h>
#include <float.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void json_global_init(void)
{
	cJSON_Hooks hooks = { xmalloc, free };

	cJSON_InitHooks(&hooks);
}

/* A decimal as sign, significant digits and where the point goes: 0.<digits> x 10^point. */
struct decimal {
	int neg;
	size_t ndigits;
	long point;
	char digits[64];
};

/*
 * The value a number literal (JSON's, or printf's with "e+05") denotes,
 * exactly, without leading or trailing zeros: 1.50, 15e-1 and 1.5 agree.
 * GS_ERROR when s[0..len) is not such a literal.
 */
static int decimal_form(struct decimal *out, const char *s, size_t len)
{
	size_t i = 0, lead = 0;
	long exp = 0;
	int eneg = 0, frac = 0;

	memset(out, 0, sizeof(*out));
	if (i < len && (s[i] == '-' || s[i] == '+'))
		out->neg = s[i++] == '-';
	for (; i < len && (isdigit((unsigned char)s[i]) || (s[i] == '.' && !frac)); i++) {
		if (s[i] == '.') {
			frac = 1;
		} else if (out->ndigits + 1 >= sizeof(out->digits)) {
			return GS_ERROR;
		} else {
			out->digits[out->ndigits++] = s[i];
			out->point += !frac;
		}
	}
	if (!out->ndigits)
		return GS_ERROR;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < len && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		if (i >= len || !isdigit((unsigned char)s[i]))
			return GS_ERROR;
		for (; i < len && isdigit((unsigned char)s[i]); i++)
			if (exp < 100000)	/* past that a double is 0 or infinite anyway */
				exp = exp * 10 + (s[i] - '0');
	}
	if (i != len)
		return GS_ERROR;
	out->point += eneg ? -exp : exp;
	while (lead < out->ndigits && out->digits[lead] == '0')
		lead++;
	memmove(out->digits, out->digits + lead, out->ndigits - lead);
	out->ndigits -= lead;
	out->point -= (long)lead;
	while (out->ndigits && out->digits[out->ndigits - 1] == '0')
		out->ndigits--;
	out->digits[out->ndigits] = '\0';
	if (!out->ndigits)
		out->point = 0;	/* zero: only its sign is left */
	return 0;
}

void json_number_text(char *buf, size_t size, double d)
{
	if (json_is_int(d)) {
		snprintf(buf, size, "%lld", (long long)d);
	} else if (isfinite(d)) {
		/*
		 * The shortest of %.15g..%.17g that reads back as d: 0.1, not
		 * 0.10000000000000001. A subnormal holds fewer digits: from 1
		 * (5e-324, not 4.94065645841247e-324).
		 */
		for (int digits = fabs(d) < DBL_MIN ? 1 : 15; digits <= 17; digits++) {
			snprintf(buf, size, "%.*g", digits, d);
			if (strtod(buf, NULL) == d)
				break;
		}
	} else {
		snprintf(buf, size, "null");
	}
}

static int same_decimal(const struct decimal *a, const struct decimal *b)
{
	return a->neg == b->neg && a->point == b->point && !strcmp(a->digits, b->digits);
}

int json_number_exact(const char *token, size_t len, double d)
{
	struct decimal want, have;
	char back[64];

	if (!isfinite(d) || decimal_form(&want, token, len) < 0)
		return 0;
	json_number_text(back, sizeof(back), d);
	if (decimal_form(&have, back, strlen(back)) == 0 && same_decimal(&want, &have))
		return 1;
	/* a subnormal was printed from 15 digits before: what was written then still reads */
	for (int digits = 15; d != 0 && fabs(d) < DBL_MIN && digits <= 17; digits++) {
		snprintf(back, sizeof(back), "%.*g", digits, d);
		if (strtod(back, NULL) == d)
			return decimal_form(&have, back, strlen(back)) == 0 && same_decimal(&want, &have);
	}
	return 0;
}

/*
 * A number that JSON allows but the model could not keep as written is
 * refused rather than changed: leading zeros (JSON has none), one past
 * the range of a double, and any that would not print back as the value
 * written (json_number_exact): 2^53 + 1, 0.1234567890123456789, -0.
 * token is len characters long.
 */
static int number_ok(const char *token, size_t len, char **err)
{
	char text[JSON_MAX_NUMBER + 1], back[64], *end;
	const char *digits = text + (*token == '-');
	double d;

	memcpy(text, token, len);
	text[len] = '\0';
	if (digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') {
		*err = xstrfmt("the number %s has a leading zero: JSON numbers have none (quote it to keep it as text)",
			       text);
		return GS_ERROR;
	}
	d = strtod(text, &end);
	if (end != text + len)
		return 0;	/* not a number: cJSON says what is wrong */
	if (!isfinite(d) || (d == 0 && strcspn(text, "123456789") < strcspn(text, "eE"))) {
		*err = xstrfmt("the number %s is out of the range a session can keep", text);
		return GS_ERROR;
	}
	if (!json_number_exact(text, len, d)) {
		json_number_text(back, sizeof(back), d);
		*err = xstrfmt("the number %s is not kept exactly by a double: it would read back as %s "
			       "(write that, or quote it to keep it as text)", text, back);
		return GS_ERROR;
	}
	return 0;
}

/* One pass over the text: depth, numbers, strings, UTF-8. */
static int json_precheck(const char *buf, size_t len, char **err)
{
	size_t i, run = 0;
	int depth = 0, in_str = 0;

	if (!gs_utf8_valid(buf, len)) {
		*err = xstrdup("not valid UTF-8 (or contains a NUL byte)");
		return GS_ERROR;
	}
	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (in_str) {
			if (c == '\\' && i + 5 < len && !strncmp(buf + i + 1, "u0000", 5)) {
				*err = xstrdup("a string holds \\u0000, a NUL character: text cannot");
				return GS_ERROR;
			}
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			if (++run > JSON_MAX_NUMBER) {
				*err = xstrfmt("number longer than %d characters", JSON_MAX_NUMBER);
				return GS_ERROR;
			}
			if (run == 1 && (c == '-' || (c >= '0' && c <= '9'))) {	/* a number starts */
				size_t n = 0;	/* buf has no NUL: a bounded strspn */

				while (i + n < len && n <= JSON_MAX_NUMBER && strchr("0123456789+-.eE", buf[i + n]) && buf[i + n])
					n++;
				if (n <= JSON_MAX_NUMBER && number_ok(buf + i, n, err) < 0)
					return GS_ERROR;
			}
			continue;
		}
		run = 0;
		if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > JSON_MAX_DEPTH) {
				*err = xstrfmt("nested deeper than %d levels", JSON_MAX_DEPTH);
				return GS_ERROR;
			}
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key some object under v holds twice, or NULL: a document that says two things. */
static const char *duplicate_key(const cJSON *v)
{
	const char *dup = NULL;
	int n = cJSON_IsObject(v) ? cJSON_GetArraySize(v) : 0;

	if (n > 1) {
		const char **keys = xcalloc((size_t)n, sizeof(*keys));
		int i = 0;

		for (const cJSON *c = v->child; c; c = c->next)
			keys[i++] = c->string;
		qsort(keys, (size_t)n, sizeof(*keys), cmp_name);
		for (i = 1; i < n && !dup; i++)
			if (!strcmp(keys[i - 1], keys[i]))
				dup = keys[i];
		free(keys);
	}
	for (const cJSON *c = v->child; c && !dup; c = c->next)
		dup = duplicate_key(c);
	return dup;
}

int json_parse(cJSON **out, const char *buf, size_t len, size_t max, char **err)
{
	const char *dup;
	const char *end = NULL;
	char *copy;
	cJSON *v;

	*out = NULL;
	*err = NULL;
	if (len > max) {
		*err = xstrfmt("larger than %zu bytes", max);
		return GS_ERROR;
	}
	if (json_precheck(buf, len, err) < 0)
		return GS_ERROR;
	copy = xstrndup(buf, len);	/* cJSON needs the NUL */
	v = cJSON_ParseWithOpts(copy, &end, 1);
	if (!v) {
		size_t at = end && end >= copy ? (size_t)(end - copy) : 0;
		*err = xstrfmt("invalid JSON near byte %zu", at);
		free(copy);
		return GS_ERROR;
	}
	free(copy);
	if ((dup = duplicate_key(v))) {
		*err = xstrfmt("the key '%s' appears twice in one object", dup);
		cJSON_Delete(v);
		return GS_ERROR;
	}
	*out = v;
	return 0;
}

int json_is_int(double d)
{
	return isfinite(d) && d == floor(d) && fabs(d) < 9007199254740992.0;
}

/* The length of the well-formed UTF-8 character at p (at most left bytes), 0 for none or a NUL. */
static size_t utf8_char(const unsigned char *p, size_t left)
{
	size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
	unsigned cp = n == 1 ? *p : n == 2 ? *p & 0x1fu : n == 3 ? *p & 0x0fu : *p & 0x07u;

	if (!n || !*p || n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3fu);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void json_add_text(struct sbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = utf8_char(p, (size_t)(end - p));

		if (n)
			sbuf_add(sb, p, n);
		else
			sbuf_adds(sb, "\xef\xbf\xbd");	/* U+FFFD, for the byte that is not text */
		p += n ? n : 1;
	}
}

/* A string as JSON: what is not UTF-8 in it becomes U+FFFD, so that the output always parses. */
static void print_string(struct sbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)p), n;

	sbuf_addch(sb, '"');
	for (; *p; p += n, left -= n) {
		n = 1;
		switch (*p) {
		case '"': sbuf_adds(sb, "\\\""); break;
		case '\\': sbuf_adds(sb, "\\\\"); break;
		case '\n': sbuf_adds(sb, "\\n"); break;
		case '\r': sbuf_adds(sb, "\\r"); break;
		case '\t': sbuf_adds(sb, "\\t"); break;
		case '\b': sbuf_adds(sb, "\\b"); break;
		case '\f': sbuf_adds(sb, "\\f"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				sbuf_addf(sb, "\\u%04x", *p);
			else if ((n = utf8_char(p, left)))
				sbuf_add(sb, p, n);
			else
				sbuf_adds(sb, "\xef\xbf\xbd"), n = 1;
		}
	}
	sbuf_addch(sb, '"');
}

static void print_number(struct sbuf *sb, double d)
{
	char text[64];

	json_number_text(text, sizeof(text), d);
	sbuf_adds(sb, text);
}

static void indent(struct sbuf *sb, int pretty, int depth)
{
	if (!pretty)
		return;
	sbuf_addch(sb, '\n');
	for (int i = 0; i < depth; i++)
		sbuf_adds(sb, "  ");
}

/* An object of scalars only ({"status": ..., "oid": ...}) prints on one line. */
static int flat_object(const cJSON *v)
{
	if (!cJSON_IsObject(v) || !v->child)
		return 0;
	for (const cJSON *c = v->child; c; c = c->next)
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			return 0;
	return 1;
}

static void print_value(struct sbuf *sb, const cJSON *v, int pretty, int depth)
{
	const cJSON *c;
	int obj;

	if (pretty == JSON_PRETTY && depth > 0 && flat_object(v)) {
		sbuf_addch(sb, '{');
		for (c = v->child; c; c = c->next) {
			print_string(sb, c->string);
			sbuf_adds(sb, ": ");
			print_value(sb, c, 0, depth + 1);
			sbuf_adds(sb, c->next ? ", " : "");
		}
		sbuf_addch(sb, '}');
		return;
	}

	if (cJSON_IsString(v)) {
		print_string(sb, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		print_number(sb, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		sbuf_adds(sb, cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		obj = cJSON_IsObject(v);
		sbuf_addch(sb, obj ? '{' : '[');
		for (c = v->child; c; c = c->next) {
			indent(sb, pretty, depth + 1);
			if (obj) {
				print_string(sb, c->string);
				sbuf_adds(sb, pretty ? ": " : ":");
			}
			print_value(sb, c, pretty, depth + 1);
			if (c->next)
				sbuf_addch(sb, ',');
		}
		if (v->child)
			indent(sb, pretty, depth);
		sbuf_addch(sb, obj ? '}' : ']');
	} else {
		sbuf_adds(sb, "null");
	}
}

char *json_print(const cJSON *v, int pretty, size_t *len)
{
	struct sbuf sb = SBUF_INIT;

	print_value(&sb, v, pretty, 0);
	if (pretty)
		sbuf_addch(&sb, '\n');
	return sbuf_detach(&sb, len);
}

const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double json_num(const cJSON *obj, const char *key, double def)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

int json_bool(const cJSON *obj, const char *key, int def)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

cJSON *json_set(cJSON *obj, const char *key, cJSON *val)
{
	if (!val)
		abort();
	if (cJSON_GetObjectItemCaseSensitive(obj, key))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, val);
	else
		cJSON_AddItemToObject(obj, key, val);
	return val;
}

cJSON *json_set_str(cJSON *obj, const char *key, const char *s)
{
	return json_set(obj, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

cJSON *json_set_num(cJSON *obj, const char *key, double n)
{
	return json_set(obj, key, cJSON_CreateNumber(n));
}

cJSON *json_set_bool(cJSON *obj, const char *key, int b)
{
	return json_set(obj, key, cJSON_CreateBool(b));
}

cJSON *json_obj(cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsObject(v) ? v : json_set(obj, key, cJSON_CreateObject());
}

cJSON *json_arr(cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsArray(v) ? v : json_set(obj, key, cJSON_CreateArray());
}

cJSON *json_dup_or_null(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
}

static int member_cmp(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

const cJSON **json_members_sorted(const cJSON *obj, size_t *n)
{
	const cJSON **v;
	const cJSON *c;

	*n = 0;
	for (c = obj ? obj->child : NULL; c; c = c->next)
		(*n)++;
	v = xcalloc(*n + 1, sizeof(*v));
	*n = 0;
	for (c = obj ? obj->child : NULL; c; c = c->next)
		v[(*n)++] = c;
	qsort(v, *n, sizeof(*v), member_cmp);
	return v;
}

const cJSON *json_member_find(const cJSON *const *sorted, size_t n, const char *key)
{
	cJSON probe = { .string = (char *)key };
	const cJSON *p = &probe, *const *found = bsearch(&p, sorted, n, sizeof(*sorted), member_cmp);

	return found ? *found : NULL;
}

/*
 * Each value of a is compared once with its counterpart in b, so the time
 * is O(n log n) in their size (cJSON_Compare compares every object member
 * in both directions at each level: exponential in the depth).
 */
int json_equal(const cJSON *a, const cJSON *b)
{
	const cJSON **x, **y;
	size_t nx, ny;
	int same;

	if (!a || !b || (a->type & 0xff) != (b->type & 0xff))
		return a == b;
	switch (a->type & 0xff) {
	case cJSON_Number:
		return a->valuedouble == b->valuedouble;
	case cJSON_String:
	case cJSON_Raw:
		return a->valuestring && b->valuestring ? !strcmp(a->valuestring, b->valuestring) :
							  a->valuestring == b->valuestring;
	case cJSON_Array:
		for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
			if (!json_equal(a, b))
				return 0;
		return !a && !b;
	case cJSON_Object:
		x = json_members_sorted(a, &nx);
		y = json_members_sorted(b, &ny);
		same = nx == ny;
		for (size_t i = 0; same && i < nx; i++)
			same = !strcmp(x[i]->string, y[i]->string) && json_equal(x[i], y[i]);
		free(x);
		free(y);
		return same;
	default:	/* null, true, false */
		return 1;
	}
}

int json_depth_over(const cJSON *v, int limit)
{
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return limit < 0;
	if (limit < 1)
		return 1;
	for (const cJSON *c = v->child; c; c = c->next)
		if (json_depth_over(c, limit - 1))
			return 1;
	return 0;
}
