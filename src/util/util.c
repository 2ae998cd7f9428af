/*
 * util.c - allocation, string buffers, the errors recorded for the front
 * end to print, warnings, and time. Touches only libc; every layer may
 * use it.
 */
#include "git-session/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p;

	n = strnlen(s, n);	/* as strndup(3): never reads past the string's end */
	p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sbuf_detach(&sb, NULL);
}

void sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want < sb->len)
		abort();
	if (want <= sb->alloc)
		return;
	sb->alloc = sb->alloc ? sb->alloc : 64;
	while (sb->alloc < want)
		sb->alloc *= 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
}

void sbuf_add(struct sbuf *sb, const void *data, size_t len)
{
	sbuf_grow(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addch(struct sbuf *sb, char c)
{
	sbuf_add(sb, &c, 1);
}

void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		abort();
	sbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

char *sbuf_detach(struct sbuf *sb, size_t *len)
{
	char *p;

	if (!sb->buf)
		sbuf_grow(sb, 0);
	p = sb->buf;
	p[sb->len] = '\0';
	if (len)
		*len = sb->len;
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}

void sbuf_release(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

/*
 * Errors are recorded, as libgit2 records them, for the front end to
 * print (or to hand over as a value): the messages the current command
 * caused and nobody has taken yet, in order. A hint belongs to the error
 * it follows. Per thread, as libgit2 keeps its last error.
 */
struct report {
	char kind;	/* 'e' an error, 'h' a hint, 'q' another program's words */
	char *msg;	/* as formatted: made safe only when said */
};

static __thread struct pending {
	struct report *v;
	size_t n, alloc;
	size_t base;		/* how many were taken before v[0]: marks count from the start */
	size_t probes;		/* marks not yet rewound */
	size_t floor;		/* the outermost one's mark: what is after it is the probe's */
} pending;

static void warn_default(const char *line);
static gs_warn_fn warn_routine = warn_default;

/*
 * As git's vreportf: what the message holds of user text cannot drive the
 * terminal. C0 controls but tab and newline, DEL and C1 controls (as
 * UTF-8) become '?'.
 */
static void add_safe(struct sbuf *sb, const char *prefix, const char *msg)
{
	size_t from;

	sbuf_adds(sb, prefix);
	from = sb->len;
	sbuf_adds(sb, msg);
	for (size_t i = from; i < sb->len; i++) {
		unsigned char ch = (unsigned char)sb->buf[i];

		if ((ch < 0x20 && ch != '\t' && ch != '\n') || ch == 0x7f) {
			sb->buf[i] = '?';
		} else if (ch == 0xc2 && i + 1 < sb->len && (unsigned char)sb->buf[i + 1] >= 0x80 &&
			   (unsigned char)sb->buf[i + 1] <= 0x9f) {
			sb->buf[i] = '?';
			memmove(sb->buf + i + 1, sb->buf + i + 2, sb->len - i - 1);	/* and the NUL */
			sb->len--;
		}
	}
}

static void record(char kind, const char *fmt, va_list ap)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_vaddf(&sb, fmt, ap);
	ALLOC_GROW(pending.v, pending.n + 1, pending.alloc);
	pending.v[pending.n].kind = kind;
	pending.v[pending.n++].msg = sbuf_detach(&sb, NULL);
}

/* Through the warning routine: one line, prefix and message, made safe. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	struct sbuf raw = SBUF_INIT, line = SBUF_INIT;

	sbuf_vaddf(&raw, fmt, ap);
	add_safe(&line, prefix, raw.buf);
	warn_routine(line.buf);
	sbuf_release(&raw);
	sbuf_release(&line);
}

static void warn_default(const char *line)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_adds(&sb, line);
	sbuf_addch(&sb, '\n');
	fflush(stdout);
	fwrite(sb.buf, 1, sb.len, stderr);
	sbuf_release(&sb);
}

gs_warn_fn gs_set_warn_routine(gs_warn_fn fn)
{
	gs_warn_fn old = warn_routine;

	warn_routine = fn ? fn : warn_default;
	return old == warn_default ? NULL : old;
}

int gs_verror(const char *fmt, va_list ap)
{
	record('e', fmt, ap);
	return GS_ERROR;
}

int gs_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_verror(fmt, ap);
	va_end(ap);
	return GS_ERROR;
}

void gs_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

/* Kept with the error before it, or in a probe; else said at once, as after a warning. */
void gs_hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (pending.n || pending.probes)
		record('h', fmt, ap);
	else
		say("hint: ", fmt, ap);
	va_end(ap);
}

void gs_error_quote(const char *text, size_t len)
{
	ALLOC_GROW(pending.v, pending.n + 1, pending.alloc);
	pending.v[pending.n].kind = 'q';
	pending.v[pending.n++].msg = xstrndup(text, len);
}

const char *gs_error_last(void)
{
	for (size_t i = pending.n; i-- > 0;)
		if (pending.v[i].kind == 'e')
			return pending.v[i].msg;
	return NULL;
}

const char *gs_error_first(size_t mark)
{
	for (size_t i = mark > pending.base ? mark - pending.base : 0; i < pending.n; i++)
		if (pending.v[i].kind == 'e')
			return pending.v[i].msg;
	return NULL;
}

/* Forgets what was recorded from the index'th message on. */
static void truncate_to(size_t index)
{
	while (pending.n > index)
		free(pending.v[--pending.n].msg);
}

char *gs_error_take(void)
{
	size_t upto = pending.n;
	struct sbuf sb = SBUF_INIT;

	if (pending.probes)
		upto = pending.floor > pending.base ? pending.floor - pending.base : 0;
	if (!upto)
		return NULL;
	for (size_t i = 0; i < upto; i++) {
		if (pending.v[i].kind == 'q') {
			sbuf_adds(&sb, pending.v[i].msg);
		} else {
			add_safe(&sb, pending.v[i].kind == 'e' ? "error: " : "hint: ", pending.v[i].msg);
			sbuf_addch(&sb, '\n');
		}
		free(pending.v[i].msg);
	}
	memmove(pending.v, pending.v + upto, (pending.n - upto) * sizeof(*pending.v));
	pending.n -= upto;
	pending.base += upto;
	return sbuf_detach(&sb, NULL);
}

void gs_error_clear(void)
{
	truncate_to(0);
	free(pending.v);
	pending = (struct pending){ 0 };
}

size_t gs_error_mark(void)
{
	size_t mark = pending.base + pending.n;

	if (!pending.probes++)
		pending.floor = mark;
	return mark;
}

void gs_error_rewind(size_t mark)
{
	truncate_to(mark > pending.base ? mark - pending.base : 0);
	if (pending.probes && !--pending.probes)
		pending.floor = 0;
}

double gs_now_ms(void)
{
	struct timespec ts;

#ifdef CLOCK_REALTIME_COARSE
	/* the clock the kernel dates files by: a file written after this is never older */
	if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) < 0)
#endif
		clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1000 + (double)(ts.tv_nsec / 1000000);
}

void gs_time_iso(char *out, size_t outlen, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int parse_digits(const char **p, int n, int *out)
{
	int v = 0;

	while (n--) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (*(*p)++ - '0');
	}
	*out = v;
	return 0;
}

int gs_time_parse_iso(time_t *out, const char *s)
{
	struct tm tm = { 0 };
	int y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0, sign = 0;
	const char *p = s;

	if (parse_digits(&p, 4, &y) || *p++ != '-' || parse_digits(&p, 2, &mo) ||
	    *p++ != '-' || parse_digits(&p, 2, &d))
		return -1;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (parse_digits(&p, 2, &h) || *p++ != ':' || parse_digits(&p, 2, &mi))
			return -1;
		if (*p == ':' && (p++, parse_digits(&p, 2, &sec)))
			return -1;
		if (*p == '.' || *p == ',')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
	}
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if (parse_digits(&p, 2, &oh))
			return -1;
		if (*p == ':')
			p++;
		if (*p && parse_digits(&p, 2, &om))
			return -1;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*out = timegm(&tm) - sign * (oh * 3600 + om * 60);
	return 0;
}

size_t gs_utf8_cut(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

int gs_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		unsigned c = *p++;
		int n;
		unsigned cp;

		if (!c)
			return 0;
		if (c < 0x80)
			continue;
		if ((c & 0xe0) == 0xc0)
			n = 1, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			n = 2, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			n = 3, cp = c & 0x07;
		else
			return 0;
		if (end - p < n)
			return 0;
		for (int i = 0; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		p += n;
		/* overlong forms, surrogates, beyond Unicode */
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
	}
	return 1;
}

int gs_read_file(char **out, size_t *len, const char *path, size_t max)
{
	struct sbuf sb = SBUF_INIT;
	int fd, error = GS_ERROR;
	ssize_t n;

	*out = NULL;
	if ((fd = open(path, O_RDONLY)) < 0)
		return gs_error("cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		sbuf_grow(&sb, 65536);
		n = read(fd, sb.buf + sb.len, sb.alloc - sb.len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			gs_error("cannot read '%s': %s", path, strerror(errno));
			goto cleanup;
		}
		if (n == 0)
			break;
		sb.len += (size_t)n;
		if (sb.len > max) {
			gs_error("'%s' is too large (over %zu bytes)", path, max);
			goto cleanup;
		}
	}
	sb.buf[sb.len] = '\0';
	*out = sbuf_detach(&sb, len);
	error = 0;
cleanup:
	close(fd);
	sbuf_release(&sb);
	return error;
}

int gs_write_in_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (!n)
				errno = ENOSPC;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int gs_write_file(const char *path, const char *text, size_t len, int mode)
{
	char *tmp = xstrfmt("%s.tmp.%ld", path, (long)getpid());
	int fd, error = GS_ERROR, failed;

	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode)) < 0) {
		gs_error("cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	failed = gs_write_in_full(fd, text, len) < 0 || fsync(fd) < 0;
	if (close(fd) < 0 || failed) {	/* closed whatever happened: no descriptor leaks */
		gs_error("cannot write '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto cleanup;
	}
	if (rename(tmp, path) < 0) {
		gs_error("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		goto cleanup;
	}
	error = 0;
cleanup:
	free(tmp);
	return error;
}

void gs_parts_free(struct gs_part *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].text);
	}
	free(v);
}

int gs_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int gs_parse_age(int64_t *out, const char *s)
{
	static const struct { const char *unit; int64_t secs; } units[] = {
		{ "s", 1 }, { "sec", 1 }, { "second", 1 }, { "seconds", 1 },
		{ "m", 60 }, { "min", 60 }, { "minute", 60 }, { "minutes", 60 },
		{ "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
		{ "d", 86400 }, { "day", 86400 }, { "days", 86400 },
		{ "w", 604800 }, { "week", 604800 }, { "weeks", 604800 },
		{ "mo", 2592000 }, { "month", 2592000 }, { "months", 2592000 },
		{ "y", 31536000 }, { "year", 31536000 }, { "years", 31536000 },
	};
	char *end;
	long long n;
	size_t len;

	if (!strcmp(s, "never") || !strcmp(s, "now")) {
		*out = !strcmp(s, "never") ? -1 : 0;
		return 0;
	}
	errno = 0;
	n = strtoll(s, &end, 10);
	if (end == s || n < 0 || errno || !isdigit((unsigned char)*s))
		return GS_ERROR;
	while (*end == '.' || *end == ' ')
		end++;
	len = strcspn(end, ". ");
	if (strcmp(end + len, "") && strcmp(end + len, ".ago") && strcmp(end + len, " ago"))
		return GS_ERROR;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].unit) == len && !strncmp(end, units[i].unit, len)) {
			if (n > INT64_MAX / units[i].secs)
				return GS_ERROR;
			*out = (int64_t)n * units[i].secs;
			return 0;
		}
	return GS_ERROR;
}

int gs_make_dirs(const char *base, const char *dir)
{
	char *path = xstrfmt("%s%s", base, dir);
	int error = 0;

	for (char *slash = path + strlen(base); slash && !error; slash = strchr(slash + 1, '/')) {
		char keep = *slash;

		*slash = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			error = gs_error("cannot make '%s': %s", path, strerror(errno));
		*slash = keep;
	}
	if (!error && mkdir(path, 0777) < 0 && errno != EEXIST)
		error = gs_error("cannot make '%s': %s", path, strerror(errno));
	free(path);
	return error;
}
