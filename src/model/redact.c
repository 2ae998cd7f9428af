/*
 * redact.c - secrets out of free text, in one pass over it: at each word
 * start, the token shapes of the common services, private key blocks,
 * JWTs, passwords in URLs and long random-looking runs; at each name, a
 * `password=`-style assignment. Hand-written rather than a regex per
 * kind: a turn's transcript is scanned on every agent hook.
 * redact_jsonl.c applies it to transcripts, string by string. Character
 * classes are ASCII on purpose: the locale must not make
 * a byte of UTF-8 part of a secret.
 */
#include "git-session/redact.h"
#include "redact-internal.h"
#include "git-session/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_MAX_LEN 100	/* past this a run of name characters is no name */
#define SHAPE_MAX_LEN 256	/* no token of a service is longer */
#define RUN_MAX_LEN 4096	/* a longer random run is data (an image), not a key */
#define RUN_RESCAN_LEN 256	/* a run longer than this is tested once, whole */

static int is_upper(int c) { return c >= 'A' && c <= 'Z'; }
static int is_lower(int c) { return c >= 'a' && c <= 'z'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return is_upper(c) || is_lower(c); }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int is_blank(int c) { return c == ' ' || c == '\t'; }
static int is_space(int c) { return is_blank(c) || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
static int in_set(int c, const char *set)
{
	while (*set && *set != c)
		set++;
	return c && *set;
}
static int lower(int c) { return is_upper(c) ? c + 32 : c; }

enum cls { KEY_CHARS, UPPER_DIGITS, ANY_BUT_SPACE };

/* A token that starts with prefix and goes on with chars of its class. */
struct shape {
	const char *prefix;
	const char *kind;
	size_t min;		/* characters after the prefix, at least */
	size_t max;		/* and at most (0: no limit) */
	enum cls cls;
};

static const struct shape shapes[] = {
	{ "AKIA", "aws-key", 16, 16, UPPER_DIGITS }, { "ASIA", "aws-key", 16, 16, UPPER_DIGITS },
	{ "AGPA", "aws-key", 16, 16, UPPER_DIGITS }, { "AIDA", "aws-key", 16, 16, UPPER_DIGITS },
	{ "AROA", "aws-key", 16, 16, UPPER_DIGITS }, { "ANPA", "aws-key", 16, 16, UPPER_DIGITS },
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
	{ "django-insecure-", "django-secret-key", 20, 0, ANY_BUT_SPACE },
};

/* Names whose value an assignment gives is a secret, matched at the name's end. */
static const char *const secret_names[] = {
	"password", "passwd", "passphrase", "secret", "secret_key", "secretkey", "secret_key_base",
	"token", "apikey", "api_key", "api-key", "access_key", "accesskey", "private_key",
	"credentials", "pwd",
};

/* Ids that services print and that look random: not secrets. */
static const char *const id_prefixes[] = {
	"toolu_", "srvtoolu_", "msg_", "req_", "call_", "chatcmpl-", "resp_",
};

static size_t at_word(const char *s, size_t len, const char **kind);

static int tok(int c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

/* s[i] follows an odd run of backslashes: the n of \n (a run past 64 counts as even) */
static int escaped(const char *s, size_t i)
{
	size_t n = 0;

	while (n < i && n < 64 && s[i - 1 - n] == '\\')
		n++;
	return n & 1;
}

/* An escape a value stops at in text that holds JSON: \" \\ \n \r \t */
static int escape_at(const char *s, size_t i, size_t len)
{
	return s[i] == '\\' && i + 1 < len && in_set(s[i + 1], "\"\\nrt");
}

/*
 * A word starts at s[i]: after a character no token has, after a '-',
 * or after an escaped newline or tab, never at the letter of an escape.
 */
static int word_start(const char *s, size_t i)
{
	if (!i)
		return 1;
	if (escaped(s, i))
		return 0;
	if (!tok((unsigned char)s[i - 1]) || s[i - 1] == '-')
		return 1;
	if (in_set(s[i - 1], "nrtbf") && escaped(s, i - 1))
		return 1;
	/* just after \u00e9 */
	return i >= 6 && s[i - 5] == 'u' && escaped(s, i - 5) && is_hex(s[i - 4]) && is_hex(s[i - 3]) &&
	       is_hex(s[i - 2]) && is_hex(s[i - 1]);
}

/* A character of a token shape: what keys are made of (and '/' in a webhook). */
static int key_char(int c, enum cls cls)
{
	if (cls == UPPER_DIGITS)
		return is_upper(c) || is_digit(c);
	if (cls == ANY_BUT_SPACE)
		return c && !is_space(c) && !in_set(c, "\"'`\\");
	return is_alnum(c) || c == '_' || c == '-' || c == '/';
}

static size_t match_shape(const char *s, size_t len, const struct shape *sh)
{
	size_t plen, n = 0;

	if (s[0] != sh->prefix[0])
		return 0;
	plen = strlen(sh->prefix);
	if (len < plen + sh->min || memcmp(s, sh->prefix, plen))
		return 0;
	while (plen + n < len && n <= SHAPE_MAX_LEN && key_char((unsigned char)s[plen + n], sh->cls) &&
	       (!sh->max || n < sh->max))
		n++;
	if (n < sh->min || n > SHAPE_MAX_LEN || (plen + n < len && tok((unsigned char)s[plen + n])))
		return 0;
	return plen + n;
}

/*
 * "-----BEGIN ... PRIVATE KEY...-----" (RSA, EC, OpenSSH, PGP's "PRIVATE
 * KEY BLOCK") to the end of its END line, or to the end of the text.
 */
static size_t match_private_key(const char *s, size_t len)
{
	size_t head = len < 100 ? len : 100;
	const char *p, *close, *end;

	if (len < 11 || memcmp(s, "-----BEGIN ", 11))
		return 0;
	if (!(p = memmem(s + 11, head - 11, "PRIVATE KEY", 11)) ||
	    !(close = memmem(p + 11, head - (size_t)(p + 11 - s), "-----", 5)) ||
	    memchr(s, '\n', (size_t)(close - s)))
		return 0;
	end = memmem(close + 5, len - (size_t)(close + 5 - s), "-----END ", 9);
	if (!end)
		return len;
	head = len - (size_t)(end + 9 - s);
	close = memmem(end + 9, head < 100 ? head : 100, "-----", 5);
	return close ? (size_t)(close + 5 - s) : len;
}

static size_t b64url_run(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && n <= RUN_MAX_LEN && (is_alnum(s[n]) || s[n] == '_' || s[n] == '-'))
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

/* Where a token in text ends: a blank, a quote, an angle bracket, an escape. */
static int token_stop(const char *s, size_t i, size_t len)
{
	return !s[i] || is_space((unsigned char)s[i]) || in_set(s[i], "\"'`<>") || escape_at(s, i, len);
}

/*
 * scheme://user:password@host: the password is from the first ':' after
 * the user to the last '@' of the URL, so it may hold '@' and '/'.
 */
static int match_url_password(const char *s, size_t len, size_t *at, size_t *n)
{
	size_t i = 0, colon, last = 0;

	while (i < len && i < 32 && (is_alnum(s[i]) || s[i] == '+' || s[i] == '.' || s[i] == '-'))
		i++;
	if (!i || len - i < 3 || memcmp(s + i, "://", 3))
		return 0;
	for (i += 3; i < len && !token_stop(s, i, len) && !in_set(s[i], ":/@"); i++)
		;
	if (i >= len || s[i] != ':')
		return 0;
	for (colon = i++; i < len && i - colon < RUN_MAX_LEN && !token_stop(s, i, len); i++)
		if (s[i] == '@')
			last = i;
		else if (s[i] == ':' && i + 2 < len && s[i + 1] == '/' && s[i + 2] == '/')
			break;	/* the next URL */
	if (last < colon + 2)
		return 0;
	*at = colon + 1;
	*n = last - colon - 1;
	return 1;
}

/* At least half the run is in lower-case stretches of three or more: words, names. */
static int wordy(const char *s, size_t n)
{
	size_t run = 0, in_words = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && is_lower(s[i])) {
			run++;
			continue;
		}
		in_words += run >= 3 ? run : 0;
		run = 0;
	}
	return in_words * 2 >= n;
}

/*
 * Two thirds of the run are what names are made of: lower-case stretches
 * of three or more, capitalised ones (Index), runs of four digits or more
 * (a date, a time).
 */
static int namelike(const char *s, size_t n)
{
	size_t in_words = 0, i = 0;

	while (i < n) {
		size_t j = i + (is_upper(s[i]) && i + 1 < n && is_lower(s[i + 1])), k = j;

		if (is_digit(s[i])) {
			while (k < n && is_digit(s[k]))
				k++;
			in_words += k - i >= 4 ? k - i : 0;
		} else {
			while (k < n && is_lower(s[k]))
				k++;
			in_words += k - j >= 3 ? k - i : 0;
		}
		i = k > i ? k : i + 1;
	}
	return in_words * 3 >= n * 2;
}

static int id_prefix(const char *s, size_t n)
{
	for (size_t k = 0; k < ARRAY_SIZE(id_prefixes); k++) {
		size_t p = strlen(id_prefixes[k]);
		if (n > p && !memcmp(s, id_prefixes[k], p))
			return 1;
	}
	return 0;
}

/* The run a random-looking secret would be: letters, digits and base64's +/=_- */
static size_t entropy_run(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && (is_alnum(s[n]) || s[n] == '+' || s[n] == '/' || s[n] == '=' || s[n] == '_' ||
			   s[n] == '-'))
		n++;
	return n;
}

/*
 * A run that looks random: upper and lower case and at least two digits,
 * a stretch of 16 with no separator in it, not mostly lower-case words,
 * and close to the most entropy its length allows. A part of a run (part:
 * the run as a whole passed) needs only to mix cases over 16 characters
 * and not be mostly a name (namelike) or hex.
 */
static int looks_random(const char *s, size_t n, int part)
{
	unsigned counts[256];
	size_t upper = 0, lower = 0, digit = 0, hex = 0, stretch = 0, longest = 0;
	double h = 0;

	memset(counts, 0, sizeof(counts));
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		counts[c]++;
		stretch = is_alnum(c) ? stretch + 1 : 0;
		longest = stretch > longest ? stretch : longest;
		upper += is_upper(c);
		lower += is_lower(c);
		digit += is_digit(c);
		hex += is_hex(c);
	}
	if (longest < 16 || !upper || !lower)
		return 0;
	if (part ? hex == n || namelike(s, n) : upper < 2 || lower < 2 || digit < 2 || wordy(s, n))
		return 0;
	for (size_t c = 0; c < 256; c++)
		if (counts[c]) {
			double p = (double)counts[c] / (double)n;
			h -= p * log2(p);
		}
	return h >= 0.85 * log2((double)(n < 64 ? n : 64));
}

/* A part of an identifier that is plainly one: a word (run, ART, Index); hex or a name of 8 or more. */
static int plain_part(const char *s, size_t n)
{
	size_t upper = 0, lower = 0, hex = 0;

	for (size_t i = 0; i < n; i++) {
		upper += is_upper(s[i]);
		lower += is_lower(s[i]);
		hex += is_hex(s[i]);
	}
	if (n >= 3 && upper + lower == n && (!upper || !lower || (upper == 1 && is_upper(s[0]))))
		return 1;
	return n >= 8 && (hex == n || namelike(s, n));
}

/*
 * A long run that looks random. A path or an identifier is parts joined
 * by '/', '-' and '_' (review-20260505T074943Z/review-index,
 * ART-0123456789abcdef0123): one with a plain part in it is a secret only
 * when another part is random on its own. A run with base64's '+' or '='
 * is judged whole; hex alone is a git object id or a content hash (a hex
 * key is caught by the name it is given).
 */
static size_t match_entropy(const char *s, size_t len)
{
	size_t n = entropy_run(s, len), hex = 0;
	int plain = 0;

	if (n < 24 || n > RUN_MAX_LEN || id_prefix(s, n))
		return 0;
	while (hex < n && is_hex(s[hex]))
		hex++;
	if (hex == n || !looks_random(s, n, 0))
		return 0;
	if (memchr(s, '+', n) || memchr(s, '=', n))
		return n;
	for (size_t at = 0, end; at < n; at = end + 1) {
		for (end = at; end < n && !in_set(s[end], "/-_"); end++)
			;
		if (looks_random(s + at, end - at, 1))
			return n;
		plain |= plain_part(s + at, end - at);
	}
	return plain ? 0 : n;
}

static int placeholder(const char *v, size_t n)
{
	static const char *const words[] = { "true", "false", "null", "none", "nil", "undefined", "changeme",
					      /* type annotations: password: string */
					      "string", "number", "boolean", "bytes", "object", "unknown" };
	size_t digits = 0;

	if (n < 4 || strchr("$<{[%*", v[0]) || (n >= 9 && !memcmp(v, "[REDACTED", 9)))
		return 1;
	for (size_t i = 0; i < n; i++)
		digits += is_digit(v[i]);
	for (size_t k = 0; k < ARRAY_SIZE(words); k++)
		if (n == strlen(words[k]) && !strncasecmp(v, words[k], n))
			return 1;
	return digits == n;
}

/* password, *_TOKEN, *_SECRET: any value; *_KEY, fooKey: a long random one */
/* name ends with suffix, in any case: compared from the end, where most differ */
static int ends_with(const char *name, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	if (n < k)
		return 0;
	while (k && lower((unsigned char)name[n - 1]) == suffix[k - 1])
		n--, k--;
	return !k;
}

static enum name_kind secret_name(const char *name, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(secret_names); i++)
		if (ends_with(name, n, secret_names[i]))
			return ANY_VALUE;
	if (n >= 4 && ends_with(name, n, "key") &&
	    (in_set(name[n - 4], "_-.") || (is_lower(name[n - 4]) && name[n - 3] == 'K')))
		return LONG_VALUE;
	return NOT_SECRET;
}

/* Code, not a literal: getToken(userId), os.environ["X"], config.password, password=password */
static int expression(const char *v, size_t n)
{
	size_t i = 0;

	if (!n || !(is_alpha(v[0]) || v[0] == '_'))
		return 0;
	for (;;) {
		while (i < n && (is_alnum(v[i]) || v[i] == '_' || v[i] == '$'))
			i++;
		if (i < n && (v[i] == '(' || v[i] == '['))
			return 1;
		if (i + 1 < n && v[i] == '.' && (is_alpha(v[i + 1]) || v[i + 1] == '_'))
			i++;
		else
			return i == n && (memchr(v, '.', n) || secret_name(v, n));
	}
}

/* A value a name of this kind has is a secret. */
static int secret_value(enum name_kind kind, const char *v, size_t n)
{
	if (placeholder(v, n))
		return 0;
	return kind == ANY_VALUE || (kind == LONG_VALUE && n >= 16 && !wordy(v, n));
}

/* The end of a value that starts at s[v], in quote (0: none; '\\': an escaped '"') */
static size_t value_end(const char *s, size_t v, size_t len, char quote)
{
	int django = len - v >= 16 && !memcmp(s + v, "django-insecure-", 16);

	if (quote == '\\') {
		while (v < len && s[v] != '\n' && !(s[v] == '\\' && v + 1 < len && s[v + 1] == '"'))
			v += s[v] == '\\' ? 2 : 1;
		return v < len ? v : len;
	}
	while (v < len && (quote ? s[v] != quote && s[v] != '\n' :
			   !token_stop(s, v, len) && (django || !in_set(s[v], ",;}&)"))))
		v++;
	return v;
}

/* After a name, what opens its value: `"`, `'`, or `\"` in text that holds JSON. */
static size_t open_quote(const char *s, size_t v, size_t len, char *quote)
{
	*quote = 0;
	if (v + 1 < len && s[v] == '\\' && s[v + 1] == '"') {
		*quote = '\\';
		return v + 2;
	}
	if (v < len && in_set(s[v], "\"'`"))
		*quote = s[v++];
	return v;
}

static size_t skip_blanks(const char *s, size_t i, size_t len)
{
	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

/* "The secret: tests must run": a value s[at..end) of letters, and more words after it */
static int prose(const char *s, size_t at, size_t end, size_t len)
{
	if (end + 1 >= len || s[end] != ' ' || !is_alpha(s[end + 1]))
		return 0;
	while (at < end && is_alpha(s[at]))
		at++;
	return at == end;
}

/*
 * At a name: `name = value`, `name: value`, `"name": "value"`, `name :=
 * value`, `'name' => 'value'`, `--name value`. The name, the separator
 * and the quotes stay; *vat and *vn are the value's span. dashes: the
 * name follows "--" (an option, whose value may follow a blank).
 */
static size_t match_assignment(const char *s, size_t len, int dashes, size_t *vat, size_t *vn)
{
	size_t i = 0, v;
	enum name_kind kind;
	char quote, sep = ' ';

	while (i < len && i <= NAME_MAX_LEN && (is_alnum(s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.'))
		i++;
	if (i < 3 || i > NAME_MAX_LEN || !(kind = secret_name(s, i)))
		return 0;
	v = open_quote(s, i, len, &quote);	/* the name's closing quote */
	if (quote == '`')
		return 0;
	v = skip_blanks(s, v, len);
	if (v < len && (s[v] == '=' || s[v] == ':')) {
		sep = s[v++];
		if (v < len && s[v] == '=' && sep == '=')
			return 0;	/* password == x */
		if (v < len && ((sep == ':' && s[v] == '=') || (sep == '=' && s[v] == '>')))
			v++;
	} else if (!dashes || v == i) {
		return 0;
	}
	v = open_quote(s, skip_blanks(s, v, len), len, &quote);
	if (!quote && sep == ' ' && v < len && s[v] == '-')
		return 0;	/* --password --other */
	*vat = v;
	v = value_end(s, v, len, quote);
	*vn = v - *vat;
	if (!secret_value(kind, s + *vat, *vn))
		return 0;
	if (!quote) {
		const char *kind_of;
		if (at_word(s + *vat, *vn, &kind_of) != *vn && expression(s + *vat, *vn))
			return 0;
		if (sep == ':' && prose(s, *vat, v, len))
			return 0;
	}
	return v ? v : 1;
}

/* A secret that starts at s[0], a word's start: its length, and its kind. */
static size_t at_word(const char *s, size_t len, const char **kind)
{
	size_t n;

	if ((n = match_private_key(s, len))) {
		*kind = "private-key";
		return n;
	}
	for (size_t k = 0; in_set(s[0], "AgnxhsrdG") && k < ARRAY_SIZE(shapes); k++)
		if ((n = match_shape(s, len, &shapes[k]))) {
			*kind = shapes[k].kind;
			return n;
		}
	if (s[0] == 'e' && (n = match_jwt(s, len))) {
		*kind = "jwt";
		return n;
	}
	if ((n = match_entropy(s, len)))
		*kind = "high-entropy";
	return n;
}

/* s starts with word (any case), and no token character follows it */
static int is_word(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && !strncasecmp(s, word, n) && (len == n || !tok((unsigned char)s[n]));
}

/* A credential in s[i..]: token characters, at least min of them (and, in prose, not words). */
static size_t credential(const char *s, size_t i, size_t len, size_t min, int prose)
{
	size_t n = 0;

	while (i + n < len && n <= SHAPE_MAX_LEN && (is_alnum(s[i + n]) || in_set(s[i + n], "-._~+/=")))
		n++;
	return n >= min && n <= SHAPE_MAX_LEN && !placeholder(s + i, n) && !(prose && wordy(s + i, n)) ? n : 0;
}

/* `Authorization: <scheme> <credential>` and `Bearer <token>` */
static int match_auth(const char *s, size_t len, size_t *vat, size_t *vn)
{
	size_t i, j;
	char quote;

	if ((s[0] | 0x20) != 'a' && (s[0] | 0x20) != 'b')
		return 0;
	if (is_word(s, len, "bearer")) {
		i = skip_blanks(s, 6, len);
		*vat = i;
		return i > 6 && (*vn = credential(s, i, len, 16, 1)) != 0;
	}
	if (!is_word(s, len, "authorization"))
		return 0;
	i = skip_blanks(s, open_quote(s, 13, len, &quote), len);
	if (i >= len || (s[i] != ':' && s[i] != '='))
		return 0;
	i = open_quote(s, skip_blanks(s, i + 1, len), len, &quote);
	for (j = i; j < len && is_alpha(s[j]); j++)
		;
	if (j > i && j < len && is_blank(s[j]))
		i = skip_blanks(s, j, len);	/* the scheme: Basic, Token, Bearer */
	*vat = i;
	return (*vn = credential(s, i, len, 8, 0)) != 0;
}

/* The command whose options follow on this line: curl's -u, mysql's -p. */
enum command { NO_COMMAND, CURL, MYSQL };

static enum command command_at(const char *s, size_t len, enum command now)
{
	static const char *const mysql[] = { "mysql", "mysqldump", "mysqladmin", "mysqlimport",
					     "mysqlshow", "mysqlsh", "mariadb", "mariadb-dump" };

	if ((s[0] | 0x20) != 'c' && (s[0] | 0x20) != 'm')
		return now;
	if (is_word(s, len, "curl"))
		return CURL;
	for (size_t k = 0; k < ARRAY_SIZE(mysql); k++)
		if (is_word(s, len, mysql[k]))
			return MYSQL;
	return now;
}

/* curl -u user:password (--user), mysql -ppassword: the password's span */
static int match_option(const char *s, size_t len, enum command cmd, size_t *vat, size_t *vn)
{
	size_t i;
	char quote;

	if (cmd == MYSQL && len > 2 && !memcmp(s, "-p", 2) && s[2] != '-' &&
	    (in_set(s[2], "\"'") || !token_stop(s, 2, len))) {
		i = open_quote(s, 2, len, &quote);
		*vat = i;
		*vn = value_end(s, i, len, quote) - i;
		return *vn > 0;
	}
	if (cmd != CURL)
		return 0;
	if (len > 2 && !memcmp(s, "-u", 2))
		i = skip_blanks(s, 2, len);
	else if (len > 6 && !memcmp(s, "--user", 6) && (is_blank(s[6]) || s[6] == '='))
		i = skip_blanks(s, 7, len);
	else
		return 0;
	i = open_quote(s, i, len, &quote);
	while (i < len && !token_stop(s, i, len) && s[i] != ':' && s[i] != quote)
		i++;
	if (i >= len || s[i] != ':')
		return 0;
	*vat = ++i;
	*vn = value_end(s, i, len, quote) - i;
	return *vn > 0 && !placeholder(s + i, *vn);
}

static void marker(struct sbuf *sb, const char *kind, int *found)
{
	sbuf_addf(sb, "[REDACTED:%s]", kind);
	(*found)++;
}

/* A secret that a name before it marks, at s[0]: its span in *vat, *vn, its kind. */
static int at_name(const char *s, size_t len, int dashes, enum command cmd, size_t *vat, size_t *vn,
		   const char **kind)
{
	if (match_assignment(s, len, dashes, vat, vn) || match_option(s, len, cmd, vat, vn) ||
	    match_auth(s, len, vat, vn)) {
		/* the value's own kind when it has one: GITHUB_TOKEN=ghp_... */
		if (at_word(s + *vat, *vn, kind) != *vn)
			*kind = "password";
		return 1;
	}
	if (match_url_password(s, len, vat, vn)) {
		*kind = "url-password";
		return 1;
	}
	return 0;
}

/* Where to look next after a word start at s[i] held no secret. */
static size_t next_start(const char *s, size_t i, size_t len)
{
	size_t run = entropy_run(s + i, len - i);

	/* a long run was tested whole; its tails are data, not keys */
	return run > RUN_RESCAN_LEN ? i + run : i + 1;
}

int redact_text(char **out, size_t *outlen, const char *s, size_t len)
{
	struct sbuf sb = SBUF_INIT;
	size_t i = 0, copied = 0, n, vat, vn;
	enum command cmd = NO_COMMAND;
	const char *kind;
	int found = 0;

	*out = NULL;
	*outlen = 0;
	while (i < len) {
		if (s[i] == '\n')
			cmd = NO_COMMAND;
		if (!word_start(s, i)) {
			i++;
			continue;
		}
		if (i >= 7 && !memcmp(s + i - 7, "base64,", 7)) {
			i += entropy_run(s + i, len - i) + 1;	/* a data: URI's payload */
			continue;
		}
		if (at_name(s + i, len - i, i >= 2 && !memcmp(s + i - 2, "--", 2), cmd, &vat, &vn, &kind)) {
			sbuf_add(&sb, s + copied, i + vat - copied);
			marker(&sb, kind, &found);
			copied = i = i + vat + vn;
		} else if ((n = at_word(s + i, len - i, &kind))) {
			sbuf_add(&sb, s + copied, i - copied);
			marker(&sb, kind, &found);
			copied = i = i + n;
		} else {
			cmd = command_at(s + i, len - i, cmd);
			i = next_start(s, i, len);
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

/* --- the values names mark, for redact_jsonl.c --- */

int redact_value(char **clean, size_t *n, const char *s, size_t len, enum name_kind name)
{
	const char *kind;

	if (name && secret_value(name, s, len)) {
		if (at_word(s, len, &kind) != len)
			kind = "password";
		*clean = xstrfmt("[REDACTED:%s]", kind);
		*n = strlen(*clean);
		return 1;
	}
	return redact_text(clean, n, s, len);
}

enum name_kind redact_key_kind(const char *key, size_t n)
{
	enum name_kind kind = secret_name(key, n);

	return kind ? kind : ends_with(key, n, "authorization") ? ANY_VALUE : NOT_SECRET;
}
