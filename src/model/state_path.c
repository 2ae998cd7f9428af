/*
 * state_path.c - which repository paths a session may name, and whether
 * a whole manifest could be checked out. The rules are git's checkout
 * rules (verify_path) with core.protectNTFS and core.protectHFS both on,
 * whatever platform runs us: a manifest may come from any remote, and a
 * name harmless here is a .git on a teammate's Windows or macOS disk.
 * Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ASCII case-insensitive: the n bytes of s against lower (lower-case). */
static int ci_eq(const char *s, const char *lower, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c != (unsigned char)lower[i])
			return 0;
	}
	return 1;
}

/* The code point at s (valid UTF-8, checked before); *len gets its size. */
static uint32_t utf8_at(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;

	if (p[0] < 0x80)
		return *len = 1, p[0];
	if (p[0] < 0xe0)
		return *len = 2, (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
	if (p[0] < 0xf0)
		return *len = 3, (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	return *len = 4, (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
		(uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
}

/* Code points HFS+ drops from a name before comparing it. */
static int hfs_ignorable(uint32_t c)
{
	return (c >= 0x200c && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x206a && c <= 0x206f) || c == 0xfeff;
}

/* The component seg (n bytes) is name (".git", lower-case ASCII) on HFS+. */
static int hfs_is(const char *seg, size_t n, const char *name)
{
	size_t i = 0, len = 0;

	for (const char *want = name;; want++) {
		uint32_t c = 0;

		while (i < n && hfs_ignorable(c = utf8_at(seg + i, &len)))
			i += len;
		if (i >= n)
			return !*want;
		if (!*want || c > 127 || !ci_eq(seg + i, want, 1))
			return 0;
		i += len;
	}
}

/* NTFS drops trailing spaces and dots, and a ':' starts a stream name. */
static int ntfs_tail(const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i] != ':'; i++)
		if (s[i] != ' ' && s[i] != '.')
			return 0;
	return 1;
}

/* seg is .git (or its 8.3 short name git~1) on NTFS. */
static int ntfs_dotgit(const char *seg, size_t n)
{
	return (n >= 4 && ci_eq(seg, ".git", 4) && ntfs_tail(seg + 4, n - 4)) ||
	       (n >= 5 && ci_eq(seg, "git~1", 5) && ntfs_tail(seg + 5, n - 5));
}

/*
 * seg is ".<name>" on NTFS: the long name, the short name of its first
 * six letters and ~1..~4, or the hashed short name NTFS falls back to
 * (up to six letters of hashed, '~', a digit 1-9, then digits: eight in
 * all), each with what ntfs_tail drops.
 */
static int ntfs_dotfile(const char *seg, size_t n, const char *name, const char *hashed)
{
	size_t len = strlen(name), i;
	int tilde = 0;

	if (n > len && seg[0] == '.' && ci_eq(seg + 1, name, len))
		return ntfs_tail(seg + len + 1, n - len - 1);
	if (n >= 8 && ci_eq(seg, name, 6) && seg[6] == '~' && seg[7] >= '1' && seg[7] <= '4')
		return ntfs_tail(seg + 8, n - 8);
	if (n < 8)
		return 0;
	for (i = 0; i < 8; i++) {
		if (tilde) {
			if (seg[i] < '0' || seg[i] > '9')
				return 0;
		} else if (seg[i] == '~') {
			if (++i >= 8 || seg[i] < '1' || seg[i] > '9')
				return 0;
			tilde = 1;
		} else if (i >= 6 || !ci_eq(seg + i, hashed + i, 1)) {
			return 0;
		}
	}
	return ntfs_tail(seg + 8, n - 8);
}

/* The files git reads from the work tree, which it will not take as a symbolic link. */
static int read_by_git(const char *seg, size_t n)
{
	static const struct {
		const char *name, *hashed, *dotted;
	} names[] = {
		{ "gitmodules", "gi7eba", ".gitmodules" },
		{ "gitattributes", "gi7d29", ".gitattributes" },
		{ "gitignore", "gi250a", ".gitignore" },
		{ "mailmap", "maba30", ".mailmap" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (ntfs_dotfile(seg, n, names[i].name, names[i].hashed) || hfs_is(seg, n, names[i].dotted))
			return 1;
	return 0;
}

const char *state_path_problem(const char *path, int link)
{
	const char *seg = path, *end;
	size_t len = strlen(path), n;

	if (!len)
		return "an empty path";
	if (*path == '/')
		return "an absolute path";
	if (!gs_utf8_valid(path, len))
		return "not valid UTF-8";
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)path[i] < 0x20)
			return "a control character in the path";
		if (path[i] == '\\')
			return "a backslash, a separator on Windows";
	}
	for (;; seg = end + 1) {
		end = strchrnul(seg, '/');
		n = (size_t)(end - seg);
		if (!n)
			return "an empty path component";
		if (seg[0] == '.' && (n == 1 || (n == 2 && seg[1] == '.')))
			return "a '.' or '..' path component";
		if (ntfs_dotgit(seg, n) || hfs_is(seg, n, ".git"))
			return "a .git path component (as git spells one on any platform)";
		/* git looks at every component of a link's path, as a folder .gitmodules/ too */
		if (link && read_by_git(seg, n))
			return "a symbolic link git will not check out under that name";
		if (!*end)
			return NULL;
	}
}

int state_valid_path(const char *path)
{
	return !state_path_problem(path, 0);
}

/*
 * An open-addressing map from a path (a prefix of an entry's, so the
 * bytes are not copied) to a number, grown by doubling.
 */
struct pathmap {
	struct slot {
		uint64_t hash;
		const char *path;	/* NULL: empty */
		size_t len, val;
	} *slot;
	size_t mask, nr;
};

#define FNV_START 0xcbf29ce484222325ULL
#define FNV_STEP(h, c) (((h) ^ (unsigned char)(c)) * 0x100000001b3ULL)

static struct slot *pathmap_find(const struct pathmap *m, uint64_t h, const char *p, size_t len)
{
	size_t i = h & m->mask;

	for (; m->slot[i].path; i = (i + 1) & m->mask)
		if (m->slot[i].hash == h && m->slot[i].len == len && !memcmp(m->slot[i].path, p, len))
			break;
	return &m->slot[i];
}

/* The slot of p (len bytes, hash h), made with val 0 when new. */
static struct slot *pathmap_put(struct pathmap *m, uint64_t h, const char *p, size_t len)
{
	struct slot *sl;

	if (2 * (m->nr + 1) > m->mask + 1) {
		struct pathmap bigger = { xcalloc(2 * (m->mask + 1), sizeof(*m->slot)), 2 * m->mask + 1, m->nr };

		for (size_t i = 0; i <= m->mask; i++)
			if (m->slot[i].path)
				*pathmap_find(&bigger, m->slot[i].hash, m->slot[i].path, m->slot[i].len) = m->slot[i];
		free(m->slot);
		*m = bigger;
	}
	sl = pathmap_find(m, h, p, len);
	if (!sl->path) {
		*sl = (struct slot){ h, p, len, 0 };
		m->nr++;
	}
	return sl;
}

static uint64_t path_hash(const char *p, size_t len)
{
	uint64_t h = FNV_START;

	for (size_t i = 0; i < len; i++)
		h = FNV_STEP(h, p[i]);
	return h;
}

/* *err for v[k] when a folder above it is a file or link of files (path -> index + 1). */
static int nest_problem(char **err, const struct pathmap *files, const struct state_path_entry *v, size_t k)
{
	const struct state_path_entry *e = &v[k];
	uint64_t h = FNV_START;

	for (size_t i = 0; e->path[i]; h = FNV_STEP(h, e->path[i]), i++) {
		const struct state_path_entry *up;
		struct slot *sl;

		if (e->path[i] != '/' || !(sl = pathmap_find(files, h, e->path, i))->path)
			continue;
		up = &v[sl->val - 1];
		/* a deleted file below a file is history (a folder became a file); below a link, deleting it would follow the link */
		if (up->link || !e->deleted) {
			*err = xstrfmt("'%s': below a %s, '%s'", e->path, up->link ? "symbolic link" : "file", up->path);
			return GS_ERROR;
		}
	}
	return 0;
}

/* The entries of v (n) that are not deleted, path -> index + 1. */
static struct pathmap live_entries(const struct state_path_entry *v, size_t n)
{
	struct pathmap m = { xcalloc(16, sizeof(struct slot)), 15, 0 };

	for (size_t i = 0; i < n; i++)
		if (!v[i].deleted)
			pathmap_put(&m, path_hash(v[i].path, strlen(v[i].path)), v[i].path, strlen(v[i].path))->val = i + 1;
	return m;
}

/* Each entry in order: its problem, else what it is below. */
static int first_problem(char **err, const struct state_path_entry *v, size_t n)
{
	struct pathmap files = live_entries(v, n);
	int error = 0;

	for (size_t i = 0; i < n && !error; i++) {
		if (v[i].problem) {
			*err = xstrfmt("'%s': %s", v[i].path, v[i].problem);
			error = GS_ERROR;
		} else {
			error = nest_problem(err, &files, v, i);
		}
	}
	free(files.slot);
	return error;
}

enum { BELOW_ANY = 1, BELOW_LIVE = 2 };

/*
 * Whether anything is wrong, cheaply: the folders the entries are in
 * (far fewer than the entries, so the map stays in cache), each with
 * whether a live entry is below it, then each file or link looked up
 * among them.
 */
static int any_problem(const struct state_path_entry *v, size_t n)
{
	struct pathmap dirs = { xcalloc(16, sizeof(struct slot)), 15, 0 };
	int bad = 0;

	for (size_t k = 0; k < n && !bad; k++) {
		const char *p = v[k].path;
		uint64_t h = FNV_START;

		bad = !!v[k].problem;
		for (size_t i = 0; p[i]; h = FNV_STEP(h, p[i]), i++)
			if (p[i] == '/')
				pathmap_put(&dirs, h, p, i)->val |= BELOW_ANY | (v[k].deleted ? 0 : BELOW_LIVE);
	}
	for (size_t k = 0; k < n && !bad; k++) {
		size_t len = strlen(v[k].path);
		struct slot *sl;

		if (v[k].deleted || !(sl = pathmap_find(&dirs, path_hash(v[k].path, len), v[k].path, len))->path)
			continue;
		bad = (sl->val & (v[k].link ? BELOW_ANY : BELOW_LIVE)) != 0;
	}
	free(dirs.slot);
	return bad;
}

int state_paths_check(char **err, const struct state_path_entry *v, size_t n)
{
	*err = NULL;
	return any_problem(v, n) ? first_problem(err, v, n) : 0;
}

int state_paths_supersede(char **err, struct state_path_entry *v, size_t n)
{
	struct pathmap live = live_entries(v, n);
	int error = 0;

	*err = NULL;
	for (size_t k = 0; k < n && !error; k++) {
		const char *p = v[k].path;
		uint64_t h = FNV_START;

		for (size_t i = 0; p[i] && !error; h = FNV_STEP(h, p[i]), i++) {
			struct slot *sl;
			struct state_path_entry *up;

			if (p[i] != '/' || !(sl = pathmap_find(&live, h, p, i))->path)
				continue;
			up = &v[sl->val - 1];
			if (v[k].deleted && !(up->fresh && up->link))
				continue;	/* a deleted entry may stay below a file */
			if (up->fresh && v[k].fresh && !v[k].deleted) {
				*err = xstrfmt("'%s': below a %s, '%s'", p, up->link ? "symbolic link" : "file", up->path);
				error = GS_ERROR;
			} else if (up->fresh) {
				v[k].superseded = 1;
				v[k].below_link |= up->link;
			} else if (v[k].fresh) {
				up->superseded = 1;
			}
		}
	}
	free(live.slot);
	return error;
}

int state_is_oid(const char *s)
{
	size_t i = 0;

	while (i < 40 && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i == 40 && !s[40];
}

/* Fills e from manifest entry f (one walk over its fields): what is wrong with it, whether deleted, a link. */
static void entry_of(struct state_path_entry *e, const cJSON *f)
{
	const cJSON *mode = NULL, *oid = NULL, *status = NULL;
	const char *st;

	for (const cJSON *k = cJSON_IsObject(f) ? f->child : NULL; k; k = k->next)
		if (!strcmp(k->string, "status"))
			status = k;
		else if (!strcmp(k->string, "oid"))
			oid = cJSON_IsNull(k) ? NULL : k;
		else if (!strcmp(k->string, "mode"))
			mode = cJSON_IsNull(k) ? NULL : k;
	st = cJSON_IsString(status) ? status->valuestring : NULL;
	e->path = f->string ? f->string : "";
	e->link = cJSON_IsString(mode) && !strcmp(mode->valuestring, FILE_MODE_LINK);
	e->deleted = st && !strcmp(st, ST_DELETED);
	if ((e->problem = state_path_problem(e->path, e->link)))
		return;
	if (!cJSON_IsObject(f))
		e->problem = "the entry is not an object";
	else if (!st || (strcmp(st, ST_CREATED) && strcmp(st, ST_MODIFIED) && !e->deleted))
		e->problem = "status must be created, modified or deleted";
	else if (mode && (!cJSON_IsString(mode) || (strcmp(mode->valuestring, "100644") &&
						   strcmp(mode->valuestring, "100755") && !e->link)))
		e->problem = "mode must be \"100644\", \"100755\" or \"120000\"";
	else if (oid && (!cJSON_IsString(oid) || !state_is_oid(oid->valuestring)))
		e->problem = "oid must be 40 lower-case hexadecimal digits";
	else if ((oid != NULL) == e->deleted)
		e->problem = "a deleted file has no blob, others need one";
	if (e->problem)
		e->deleted = 0;
}

int state_manifest_check(char **err, const cJSON *files)
{
	size_t n = 0, i = 0;
	struct state_path_entry *v;
	const cJSON *f;
	int error;

	*err = NULL;
	if (!files)
		return 0;
	if (!cJSON_IsObject(files)) {
		*err = xstrdup("the manifest is not an object");
		return GS_ERROR;
	}
	for (f = files->child; f; f = f->next)
		n++;
	v = xcalloc(n + 1, sizeof(*v));
	for (f = files->child; f; f = f->next)
		entry_of(&v[i++], f);
	error = state_paths_check(err, v, n);
	free(v);
	return error;
}

int state_manifest_entries_check(char **err, const cJSON *files)
{
	struct state_path_entry e;

	*err = NULL;
	if (files && !cJSON_IsObject(files)) {
		*err = xstrdup("the manifest is not an object");
		return GS_ERROR;
	}
	for (const cJSON *f = files ? files->child : NULL; f; f = f->next) {
		entry_of(&e, f);
		if (e.problem) {
			*err = xstrfmt("'%s': %s", e.path, e.problem);
			return GS_ERROR;
		}
	}
	return 0;
}
