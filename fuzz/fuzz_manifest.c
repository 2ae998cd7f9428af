/*
 * fuzz_manifest.c - any bytes as a manifest (JSON) and as one path: what
 * the path judge accepts never reaches a .git in any spelling, never
 * leaves the work tree, and no accepted manifest puts an entry below a
 * file or a link. The rules are checked again here in the plainest way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c;
}

/* s (n bytes) lower-cased equals want */
static int folds_to(const char *s, size_t n, const char *want)
{
	if (n != strlen(want))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)s[i]) != want[i])
			return 0;
	return 1;
}

/* The component as HFS+ compares it: the ignorable code points (3 bytes each in UTF-8) left out. */
static size_t hfs_fold(char *out, const char *s, size_t n)
{
	static const char *const ignorable[] = {
		"\xe2\x80\x8c", "\xe2\x80\x8d", "\xe2\x80\x8e", "\xe2\x80\x8f", "\xe2\x80\xaa", "\xe2\x80\xab",
		"\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae", "\xe2\x81\xaa", "\xe2\x81\xab", "\xe2\x81\xac",
		"\xe2\x81\xad", "\xe2\x81\xae", "\xe2\x81\xaf", "\xef\xbb\xbf",
	};
	size_t k = 0;

	for (size_t i = 0; i < n;) {
		int skip = 0;

		for (size_t j = 0; j < ARRAY_SIZE(ignorable) && !skip; j++)
			skip = n - i >= 3 && !memcmp(s + i, ignorable[j], 3);
		if (skip) {
			i += 3;
			continue;
		}
		out[k++] = s[i++];
	}
	return k;
}

/* The component as NTFS reads it: up to a ':', trailing dots and spaces dropped. */
static size_t ntfs_fold(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);

	if (colon)
		n = (size_t)(colon - s);
	while (n && (s[n - 1] == '.' || s[n - 1] == ' '))
		n--;
	return n;
}

static void check_accepted_path(const char *p)
{
	size_t len = strlen(p);
	char *fold = malloc(len + 1);

	if (!len || p[0] == '/' || strchr(p, '\\') || strstr(p, "//") || p[len - 1] == '/' ||
	    !gs_utf8_valid(p, len))
		abort();
	for (const char *seg = p, *end; ; seg = end + 1) {
		size_t n;

		end = strchrnul(seg, '/');
		n = (size_t)(end - seg);
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)seg[i] < 0x20)
				abort();
		if (folds_to(seg, n, ".") || folds_to(seg, n, "..") || folds_to(fold, hfs_fold(fold, seg, n), ".git") ||
		    folds_to(seg, ntfs_fold(seg, n), ".git") || folds_to(seg, ntfs_fold(seg, n), "git~1"))
			abort();
		if (!*end)
			break;
	}
	free(fold);
}

static void check_path(const char *p)
{
	if (state_valid_path(p) != !state_path_problem(p, 0))
		abort();
	if (state_valid_path(p))
		check_accepted_path(p);
	if (!state_path_problem(p, 1)) {
		if (!state_valid_path(p))
			abort();	/* a name good for a link is good for a file */
		if (!strcmp(strrchr(p, '/') ? strrchr(p, '/') + 1 : p, ".gitmodules"))
			abort();
	}
}

/* below: b is inside the folder a would be */
static int below(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !strncmp(a, b, n) && b[n] == '/';
}

static void check_accepted_manifest(const cJSON *m)
{
	int n = 0;

	for (const cJSON *f = m->child; f; f = f->next, n++) {
		const char *oid = json_str(f, "oid"), *mode = json_str(f, "mode");

		check_accepted_path(f->string);
		if (!json_str(f, "status") || (oid && strlen(oid) != 40) || !!oid == !strcmp(json_str(f, "status"), "deleted"))
			abort();
		if (mode && strcmp(mode, "100644") && strcmp(mode, "100755") && strcmp(mode, "120000"))
			abort();
	}
	if (n > 300)
		return;	/* the pairwise look is for small inputs */
	for (const cJSON *up = m->child; up; up = up->next) {
		const char *mode = json_str(up, "mode");
		int link = mode && !strcmp(mode, "120000");

		if (!strcmp(json_str(up, "status"), "deleted"))
			continue;
		for (const cJSON *f = m->child; f; f = f->next)
			if (below(up->string, f->string) && (link || strcmp(json_str(f, "status"), "deleted")))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;
	char *text = malloc(size + 1), *err = NULL;
	cJSON *m = NULL;

	if (!once++)
		json_global_init();
	memcpy(text, data, size);
	text[size] = '\0';
	check_path(text);
	if (json_parse(&m, text, size, 1 << 20, &err) == 0) {
		int ok = state_manifest_check(&err, m) == 0;

		if (ok != !err || (!ok && (err[0] != '\'' && strncmp(err, "the manifest", 12))))
			abort();
		if (ok && cJSON_IsObject(m))
			check_accepted_manifest(m);
	}
	free(err);
	cJSON_Delete(m);
	free(text);
	return 0;
}
