/*
 * util.h - small helpers shared by every layer: allocation, a growable
 * string buffer, git-style errors (recorded, for the front end to print)
 * and warnings, and ISO 8601 time. No git, no JSON.
 */
#ifndef GIT_SESSION_UTIL_H
#define GIT_SESSION_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* git-session's version, as --version and the MCP server say it. */
#define GIT_SESSION_VERSION "0.3.0"

/* Return codes of our own functions, beside 0 and libgit2's negatives. */
enum {
	GS_OK = 0,
	GS_ERROR = -1,
	GS_ENOTFOUND = -3,	/* same value as GIT_ENOTFOUND */
	GS_ERACE = -100,	/* lost a compare-and-swap: re-read and retry */
	GS_ESKIPPED = -101,	/* the session is not in progress: nothing done */
	GS_EPARTIAL = -102,	/* a change reached what was not loaded: load it all, again */
	GS_ETIMEDOUT = -103,	/* a program git-session ran passed its time limit, and was killed */
	GS_EUSAGE = -129,	/* bad command line: exit 129 */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation that aborts on exhaustion, as git's xmalloc does. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/*
 * git's ALLOC_GROW: makes room for nr elements in x, whose room is alloc,
 * growing by half again each time so that n appends cost O(n).
 */
#define GS_ALLOC_NR(x) (((x) + 16) * 3 / 2)
#define ALLOC_GROW(x, nr, alloc) \
	do { \
		if ((nr) > (alloc)) { \
			(alloc) = GS_ALLOC_NR(alloc) < (nr) ? (nr) : GS_ALLOC_NR(alloc); \
			(x) = xrealloc((x), (alloc) * sizeof(*(x))); \
		} \
	} while (0)
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated string; the caller frees it. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable, always NUL-terminated byte buffer. */
struct sbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
#define SBUF_INIT { NULL, 0, 0 }
void sbuf_grow(struct sbuf *sb, size_t extra);
void sbuf_add(struct sbuf *sb, const void *data, size_t len);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addch(struct sbuf *sb, char c);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap);
void sbuf_reset(struct sbuf *sb);
/* Hands the buffer to the caller, who frees it; sb is left empty. */
char *sbuf_detach(struct sbuf *sb, size_t *len);
void sbuf_release(struct sbuf *sb);

/*
 * Errors, as libgit2 keeps them: gs_error records "<msg>" for the
 * current thread and returns GS_ERROR, so callers write `return
 * gs_error(...)`; the library records, the command layer prints what is
 * pending (the command's own words, and git's "error: " and "hint: "
 * prefixes, control characters made '?' as git's vreportf does).
 */
int gs_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int gs_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* A hint for the error before it, kept with it; with none pending, said at once as a warning is. */
void gs_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A warning is said at once, through a routine the front end may
 * replace, as git's set_warn_routine: it gets the whole line ("warning:
 * <msg>", or "hint: ..."), made safe, without a newline. The default
 * writes it on stderr; gs_set_warn_routine(NULL) brings it back. Returns
 * the routine replaced (NULL for the default).
 */
typedef void (*gs_warn_fn)(const char *line);
void gs_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
gs_warn_fn gs_set_warn_routine(gs_warn_fn fn);

/* What a program we ran said on its stderr, kept in its place among the errors, said as it is. */
void gs_error_quote(const char *text, size_t len);
/* The message of the last error pending, or NULL; valid until the next call here. */
const char *gs_error_last(void);
/*
 * What is pending, as lines to print ("error: ...\nhint: ...\n"), and no
 * longer pending; NULL for nothing. What a probe (below) caused is left
 * to it. The caller frees the text.
 */
char *gs_error_take(void);
/* Forgets everything pending, a probe's too. */
void gs_error_clear(void);
/*
 * A probe that may fail without it being an error: mark, try, rewind,
 * and exactly what was recorded in between is forgotten. Marks nest;
 * every mark is rewound once. gs_error_first gives the probe's first
 * error meanwhile, as an agent's hook says it on one line.
 */
size_t gs_error_mark(void);
void gs_error_rewind(size_t mark);
const char *gs_error_first(size_t mark);

/* The wall clock in milliseconds since the epoch, as the file system dates a file written now. */
double gs_now_ms(void);
/* Formats t as "YYYY-MM-DDTHH:MM:SSZ" into out (at least 21 bytes). */
void gs_time_iso(char *out, size_t outlen, time_t t);
/*
 * Parses an ISO 8601 time ("2026-01-02T03:04:05Z", "+hh:mm" offsets,
 * fractional seconds and a space for 'T' accepted). Returns 0 or -1.
 */
int gs_time_parse_iso(time_t *out, const char *s);
/*
 * An age as git's gc options take one ("30.days.ago", "2 weeks", "12h",
 * "90d", "now"), in seconds; "never" is -1. GS_ERROR for anything else.
 */
int gs_parse_age(int64_t *out, const char *s);

/* qsort and bsearch comparator of strings (elements are char *). */
int gs_cmp_str(const void *a, const void *b);

/* Non-zero when s (len bytes) is well-formed UTF-8 with no NUL byte. */
int gs_utf8_valid(const char *s, size_t len);
/* The length of s cut to at most max bytes, at the start of a UTF-8 character. */
size_t gs_utf8_cut(const char *s, size_t max);

/*
 * A blob of a checkpoint's tree beside session.json: its path and text
 * (text NULL: the path is to go). An array of parts owns its strings and
 * is freed with gs_parts_free; a function that takes parts as `const
 * struct gs_part *` only reads them, and never keeps a pointer into them.
 */
struct gs_part {
	char *path;
	char *text;
	size_t len;
};
void gs_parts_free(struct gs_part *v, size_t n);

/* Reads a whole file, NUL-terminated; refuses files over max bytes. */
int gs_read_file(char **out, size_t *len, const char *path, size_t max);
/* base followed by dir, made with its parents as needed ("mkdir -p"); base must exist. */
int gs_make_dirs(const char *base, const char *dir);
/* As git's write_in_full: short writes and interruptions are retried; -1 and errno on failure. */
int gs_write_in_full(int fd, const char *buf, size_t len);
/* Writes a whole file through a temporary file and a rename (all or nothing). */
int gs_write_file(const char *path, const char *text, size_t len, int mode);

#endif
