/*
 * redact.c - secrets out of free text, in one pass over it: at each word
 * start, the token shapes of the common services, private key blocks,
 * JWTs, passwords in URLs and long random-looking runs; at each name, a
 * `password=`-style assignment. Hand-written rather than a regex per
 * kind: a turn's transcript is scanned on every agent hook.
 */
#include "git-session/redact.h"
#include "git-session/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A token that starts with prefix and goes on with chars of its class. */
struct shape {
	const char *prefix;
	const char *kind;
	size_t min;		/* characters after the prefix, at least */
	size_t max;		/* and at most (0: no limit) */
	int upper_digits;	/* only A-Z and 0-9 (AWS) */
};

static const struct shape shapes[] = {
	{ "AKIA", "aws-key", 16, 16, 1 }, { "ASIA", "aws-key", 16, 16, 1 },
	{ "AGPA", "aws-key", 16, 16, 1 }, { "AIDA", "aws-key", 16, 16, 1 },
	{ "AROA", "aws-key", 16, 16, 1 }, { "ANPA", "aws-key", 16, 16, 1 },
	{ "ghp_", "github-token", 30, 0, 0 }, { "gho_", "github-token", 30, 0, 0 },
	{ "ghu_", "github-token", 30, 0, 0 }, { "ghs_", "github-token", 30, 0, 0 },
	{ "ghr_", "github-token", 30, 0, 0 }, { "github_pat_", "github-token", 22, 0, 0 },
	{ "glpat-", "gitlab-token", 20, 0, 0 }, { "gldt-", "gitlab-token", 20, 0, 0 },
	{ "npm_", "npm-token", 36, 0, 0 },
	{ "xoxb-", "slack-token", 10, 0, 0 }, { "xoxp-", "slack-token", 10, 0, 0 },
	{ "xoxa-", "slack-token", 10, 0, 0 }, { "xoxr-", "slack-token", 10, 0, 0 },
	{ "xoxs-", "slack-token", 10, 0, 0 }, { "xapp-", "slack-token", 10, 0, 0 },
	{ "https://hooks.slack.com/services/", "slack-token", 20, 0, 0 },
	{ "AIza", "google-api-key", 35, 35, 0 },
	{ "sk-ant-", "api-key", 20, 0, 0 }, { "sk-proj-", "api-key", 20, 0, 0 },
	{ "sk-", "api-key", 32, 0, 0 },
	{ "sk_live_", "api-key", 16, 0, 0 }, { "sk_test_", "api-key", 16, 0, 0 },
	{ "rk_live_", "api-key", 16, 0, 0 },
};

/* Names whose value an assignment gives is a secret, matched at the name's end. */
static const char *const secret_names[] = {
	"password", "passwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key",
	"access_key", "accesskey", "private_key", "credentials", "pwd",
};

static int tok(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

/* A character of a token shape: what keys are made of (and '/' in a webhook). */
static int key_char(unsigned char c, int upper_digits)
{
	if (upper_digits)
		return isupper(c) || isdigit(c);
	return isalnum(c) || c == '_' || c == '-' || c == '/';
}

static size_t match_shape(const char *s, size_t len, const struct shape *sh)
{
	size_t plen = strlen(sh->prefix), n = 0;

	if (len < plen + sh->min || memcmp(s, sh->prefix, plen))
		return 0;
	while (plen + n < len && key_char((unsigned char)s[plen + n], sh->upper_digits) &&
	       (!sh->max || n < sh->max))
		n++;
	if (n < sh->min || (plen + n < len && tok((unsigned char)s[plen + n])))
		return 0;
	return plen + n;
}

/* "-----BEGIN ... PRIVATE KEY-----" to its END line, or to the end of the text. */
static size_t match_private_key(const char *s, size_t len)
{
	const char *head_end, *end;

	if (len < 11 || memcmp(s, "-----BEGIN ", 11))
		return 0;
	head_end = memmem(s, len < 80 ? len : 80, "PRIVATE KEY-----", 16);
	if (!head_end)
		return 0;
	end = memmem(head_end + 16, len - (size_t)(head_end + 16 - s), "-----END ", 9);
	if (!end)
		return len;
	end = memmem(end, len - (size_t)(end - s), "KEY-----", 8);
	return end ? (size_t)(end + 8 - s) : len;
}

static size_t b64url_run(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '-'))
		n++;
	return n;
}

/* header.payload.signature, the first two base64url JSON ("eyJ") */
static size_t match_jwt(const char *s, size_t len)
{
	size_t a, b, c;

	if (len < 20 || memcmp(s, "eyJ", 3) || (a = b64url_run(s, len)) < 10 || a >= len || s[a] != '.')
		return 0;
	if ((b = b64url_run(s + a + 1, len - a - 1)) < 10 || a + 1 + b >= len || s[a + 1 + b] != '.')
		return 0;
	c = b64url_run(s + a + b + 2, len - a - b - 2);
	return c < 8 ? 0 : a + b + c + 2;
}

/* scheme://user:password@host: the password's span in *at, *n */
static int match_url_password(const char *s, size_t len, size_t *at, size_t *n)
{
	size_t i = 0, colon = 0;

	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '.' || s[i] == '-'))
		i++;
	if (!i || len - i < 3 || memcmp(s + i, "://", 3))
		return 0;
	for (i += 3; i < len && !isspace((unsigned char)s[i]) && s[i] != '/' && s[i] != '@'; i++)
		if (s[i] == ':' && !colon)
			colon = i;
	if (i >= len || s[i] != '@' || !colon || i - colon < 2)
		return 0;
	*at = colon + 1;
	*n = i - colon - 1;
	return 1;
}

/*
 * A long run of letters and digits that looks random: upper and lower
 * case and at least two digits (a name in CamelCase with a number at
 * its end is not a key), a stretch of 16 with no separator in it (a path
 * or a kebab-case name has short ones), and close to the most entropy
 * its length allows.
 */
static size_t match_entropy(const char *s, size_t len)
{
	unsigned counts[256] = { 0 };
	size_t upper = 0, lower = 0, digit = 0, stretch = 0, longest = 0;
	size_t n = 0;
	double h = 0;

	while (n < len && (isalnum((unsigned char)s[n]) || strchr("+/=_-", s[n]) != NULL) && s[n])
		n++;
	if (n < 24 || n > 4096)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		counts[c]++;
		stretch = isalnum(c) ? stretch + 1 : 0;
		longest = stretch > longest ? stretch : longest;
		upper += isupper(c) != 0;
		lower += islower(c) != 0;
		digit += isdigit(c) != 0;
	}
	if (upper < 2 || lower < 2 || digit < 2 || longest < 16)
		return 0;
	for (size_t c = 0; c < 256; c++)
		if (counts[c]) {
			double p = (double)counts[c] / (double)n;
			h -= p * log2(p);
		}
	return h >= 0.85 * log2((double)(n < 64 ? n : 64)) ? n : 0;
}

static int placeholder(const char *v, size_t n)
{
	size_t digits = 0;

	if (n < 4 || strchr("$<{[%*", v[0]) || (n >= 9 && !memcmp(v, "[REDACTED", 9)))
		return 1;
	for (size_t i = 0; i < n; i++)
		digits += isdigit((unsigned char)v[i]) != 0;
	return digits == n || (n == 4 && !strncasecmp(v, "true", 4)) || (n == 4 && !strncasecmp(v, "null", 4)) ||
	       (n == 5 && !strncasecmp(v, "false", 5)) || (n == 4 && !strncasecmp(v, "none", 4));
}

static int secret_name(const char *name, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(secret_names); i++) {
		size_t k = strlen(secret_names[i]);
		if (n >= k && !strncasecmp(name + n - k, secret_names[i], k))
			return 1;
	}
	return 0;
}

/*
 * At a name: `name = value`, `name: value`, `"name": "value"`. The name,
 * the separator and the quotes stay; *vat and *vn are the value's span.
 */
static size_t match_assignment(const char *s, size_t len, size_t *vat, size_t *vn)
{
	size_t i = 0, v;
	char quote = 0;

	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.'))
		i++;
	if (i < 3 || !secret_name(s, i))
		return 0;
	v = i;
	if (v < len && (s[v] == '"' || s[v] == '\''))
		v++;
	while (v < len && (s[v] == ' ' || s[v] == '\t'))
		v++;
	if (v >= len || (s[v] != '=' && s[v] != ':'))
		return 0;
	for (v++; v < len && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	if (v < len && (s[v] == '"' || s[v] == '\''))
		quote = s[v++];
	*vat = v;
	while (v < len && (quote ? s[v] != quote && s[v] != '\n' :
			   !isspace((unsigned char)s[v]) && !strchr(",;}&\"'", s[v])))
		v++;
	*vn = v - *vat;
	return placeholder(s + *vat, *vn) ? 0 : v;
}

static void marker(struct sbuf *sb, const char *kind, int *found)
{
	sbuf_addf(sb, "[REDACTED:%s]", kind);
	(*found)++;
}

/* A secret that starts at s[0], a word's start: its length, and its kind. */
static size_t at_word(const char *s, size_t len, const char **kind)
{
	size_t n;

	if ((n = match_private_key(s, len))) {
		*kind = "private-key";
		return n;
	}
	for (size_t k = 0; k < ARRAY_SIZE(shapes); k++)
		if ((n = match_shape(s, len, &shapes[k]))) {
			*kind = shapes[k].kind;
			return n;
		}
	if ((n = match_jwt(s, len))) {
		*kind = "jwt";
		return n;
	}
	if ((n = match_entropy(s, len)))
		*kind = "high-entropy";
	return n;
}

int redact_text(char **out, size_t *outlen, const char *s, size_t len)
{
	struct sbuf sb = SBUF_INIT;
	size_t i = 0, copied = 0, n, vat, vn;
	const char *kind;
	int found = 0;

	*out = NULL;
	*outlen = 0;
	while (i < len) {
		if (i && tok((unsigned char)s[i - 1]) && s[i - 1] != '-') {
			i++;
			continue;
		}
		if ((n = match_assignment(s + i, len - i, &vat, &vn))) {
			/* the value's own kind when it has one: GITHUB_TOKEN=ghp_... */
			if (at_word(s + i + vat, vn, &kind) != vn)
				kind = "password";
			sbuf_add(&sb, s + copied, i + vat - copied);
			marker(&sb, kind, &found);
			copied = i + vat + vn;
			i = copied;
		} else if (match_url_password(s + i, len - i, &vat, &vn)) {
			sbuf_add(&sb, s + copied, i + vat - copied);
			marker(&sb, "url-password", &found);
			copied = i = i + vat + vn;
		} else if ((n = at_word(s + i, len - i, &kind))) {
			sbuf_add(&sb, s + copied, i - copied);
			marker(&sb, kind, &found);
			copied = i = i + n;
		} else {
			i++;
		}
	}
	if (!found) {
		sbuf_release(&sb);
		return 0;
	}
	sbuf_add(&sb, s + copied, len - copied);
	*out = sbuf_detach(&sb, outlen);
	return found;
}

int redact_json(cJSON *v)
{
	int found = 0;

	if (cJSON_IsString(v) && v->valuestring) {
		char *clean;
		size_t n;

		if ((found = redact_text(&clean, &n, v->valuestring, strlen(v->valuestring))) > 0) {
			free(v->valuestring);
			v->valuestring = clean;
		}
		return found;
	}
	for (cJSON *c = v ? v->child : NULL; c; c = c->next)
		found += redact_json(c);
	return found;
}
