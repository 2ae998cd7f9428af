/*
 * format.h - the foreign session formats (GS_FORMATS): detection, reading
 * a document into the model and writing the model back as that document,
 * and where a format's sessions lie in files. Pure: works on buffers and
 * cJSON; the command reads and writes the files.
 *
 * A document as data is one JSON value per format: the file's content,
 * or, where the format spans two files, an object of both parts:
 *   maestro  {"front_matter": {...}, "body": "<markdown>"}
 *   copilot  {"state": {...}, "handoff": "<markdown>"}   (handoff optional)
 *   ccw      {"session": {...}, "registry": {...}}       (either optional)
 *   maestro-flow {"session": {...}, "runs": {"<run id>": {...}},
 *            "artifacts": {...}, "evidence": {...}, "gates": {...}}  (all but session optional)
 *   claude, bmad: the JSON / YAML object itself
 *
 * What the model has no place for goes into extra.<format>; what a round
 * trip would still change (a missing key, a value with no exact spelling
 * in the model) is kept in extra.import.patch, so that exporting an
 * imported session unchanged gives back the same document.
 */
#ifndef GIT_SESSION_FORMAT_H
#define GIT_SESSION_FORMAT_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define FORMAT_MAX_BYTES (16u * 1024 * 1024)

/*
 * The formats, each listed once, in the order detection tries them:
 * X(ID, name, "Title"), the title being how people call it. Each has its
 * file src/format/<name>.c, ending in FORMAT_DEFINE(ID, name, ...), which
 * defines format_<name>. The name users type (--format) is name with '-'
 * for each '_' (maestro_flow: maestro-flow). The fuzz targets, the help
 * and the shell completion are made from this list.
 */
#define GS_FORMATS(X) X(MAESTRO, maestro, "Maestro") X(CCW, ccw, "CCW") X(MAESTRO_FLOW, maestro_flow, "maestro-flow") \
	X(COPILOT, copilot, "Copilot") X(CLAUDE, claude, "Claude") X(BMAD, bmad, "BMAD")

enum format_id {
#define GS_FORMAT_ENUM(id, name, title) FORMAT_##id,
	GS_FORMATS(GS_FORMAT_ENUM)
#undef GS_FORMAT_ENUM
	FORMAT_COUNT
};

struct format;

/* The format called name, or NULL. */
const struct format *format_find(const char *name);
const struct format *format_get(enum format_id id);
/* The name users type: "maestro-flow". */
const char *format_name(const struct format *f);
/* "maestro, ccw, maestro-flow, copilot, claude, bmad", for messages. */
const char *format_names(void);
/* "maestro, ccw, copilot, claude or bmad"; with titles "Maestro, CCW, ... or BMAD". */
const char *format_choices(int titles);

/*
 * Reads a file's bytes into a document as data; f NULL: detect the
 * format from the content. On success *f
 * is the format. For maestro the document is the whole front matter
 * file, for copilot the state file, for ccw a workflow-session.json or
 * a session_status.jsonl registry (then *doc is {"registry": [...]}).
 */
int format_parse(cJSON **doc, const struct format **f, const char *buf, size_t len, char **err);

/*
 * The model's state for doc (a session.json without files, which the
 * caller records) and the files doc names: path -> {status, phase,
 * agent}. *active is set when the source marks the session as the one
 * being worked on. project is the model's project (this repository).
 * archived: doc comes from an archive, where a session whose phases are
 * all done is completed, whatever the file still says.
 * The state's extra.import holds the format and the
 * patch for a faithful export.
 */
int format_import(cJSON **state, cJSON **files, int *active, const struct format *f,
		  const cJSON *doc, const cJSON *project, int archived, char **err);

/* The document for state (whatever its source), as data. */
int format_export(cJSON **doc, const struct format *f, const cJSON *state, char **err);

/*
 * The file text of a document's main part (part NULL), or of a second
 * part ("handoff" for copilot, "registry" for ccw); *out NULL when the
 * document has no such part.
 */
int format_print(char **out, size_t *len, const struct format *f, const cJSON *doc, const char *part);

/*
 * What of the session the format has no place for: the names of those of
 * its parts that hold something ("decisions (2), notes (5)"), or NULL when
 * the format holds it all. The caller frees the text.
 */
char *format_lost(const struct format *f, const cJSON *state);

/*
 * The phases the format's export has no place for (a ninth Copilot step):
 * `phase 9 "Hand-over"`, or `phases 9 "A", 10 "B"`, with their count in
 * *n; NULL when it writes them all. The caller frees the text.
 */
char *format_unplaced(int *n, const struct format *f, const cJSON *state);

/*
 * Where a format's sessions lie in files beyond one file each (NULL: no
 * such file). The command that reads and writes the files follows it.
 */
struct format_layout {
	/* A second part of the document, in a file of its own beside the main one. */
	const char *part, *part_file;
	/* The names of a file that only names the active session's own file. */
	const char *const *pointer_names;
	/* The file of a session kept in a folder of its own, and the folders that hold such folders. */
	const char *session_file;
	const char *const *session_dirs;
	/* The file listing every session, a line each; export --registry writes it. */
	const char *registry_file;
	/*
	 * A folder beside the session file holding a folder per item, each
	 * with its item_file: the document's part items_dir, by folder name.
	 */
	const char *items_dir, *item_file;
};
const struct format_layout *format_layout(const struct format *f);

/*
 * The files beside the session file that doc names as parts of itself:
 * {"<part>": "<file name>"}, each name plain (format_plain_name); the
 * caller frees it. NULL when the format has none.
 */
cJSON *format_side_files(const struct format *f, const cJSON *doc);
/*
 * Whether name may name a file or folder of a session's: not empty, at
 * most 128 bytes, not hidden (no leading '.', so no "." or ".."), no '/',
 * '\\' or control character. Ids that become folders are checked whole
 * before anything is written.
 */
int format_plain_name(const char *name);

/* The format whose pointer file is called name (no folder), or NULL. */
const struct format *format_by_pointer_name(const char *name);
/* Whether some format keeps its sessions' folders in folders called name. */
int format_session_dir(const char *name);
/* The format with a registry file, or NULL. */
const struct format *format_with_registry(void);

/* A pointer file's document: the file it names, beside it (caller frees); NULL if doc is not one. */
char *format_pointer(const struct format *f, const cJSON *doc);

/* A registry's document: its entries, each a session; NULL if doc is not one. */
const cJSON *format_registry(const struct format *f, const cJSON *doc);
/* The folder of an entry's session file, as the entry gives it (or NULL). */
const char *format_registry_dir(const struct format *f, const cJSON *entry);
/* The document of one entry, with its session file's document (session, may be NULL). */
int format_registry_doc(cJSON **doc, const struct format *f, const cJSON *entry, const cJSON *session,
			char **err);
/* The registry line of state. */
int format_registry_line(char **out, const struct format *f, const cJSON *state);

#endif
