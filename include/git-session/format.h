/*
 * format.h - the five foreign session formats (maestro, claude, copilot,
 * bmad, ccw): detection, reading a document into the model and writing
 * the model back as that document. Pure: works on buffers and cJSON.
 *
 * A document as data is one JSON value per format: the file's content,
 * or, where the format spans two files, an object of both parts:
 *   maestro  {"front_matter": {...}, "body": "<markdown>"}
 *   copilot  {"state": {...}, "handoff": "<markdown>"}   (handoff optional)
 *   ccw      {"session": {...}, "registry": {...}}       (either optional)
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
 * X(ID, name). Each has its file src/format/<name>.c, ending in
 * FORMAT_DEFINE(ID, name), which defines format_<name>; the fuzz targets
 * are made from this list.
 */
#define GS_FORMATS(X) X(MAESTRO, maestro) X(CCW, ccw) X(COPILOT, copilot) X(CLAUDE, claude) X(BMAD, bmad)

enum format_id {
#define GS_FORMAT_ENUM(id, name) FORMAT_##id,
	GS_FORMATS(GS_FORMAT_ENUM)
#undef GS_FORMAT_ENUM
	FORMAT_COUNT
};

struct format;

/* The format called name, or NULL. */
const struct format *format_find(const char *name);
const struct format *format_get(enum format_id id);
const char *format_name(const struct format *f);
enum format_id format_id(const struct format *f);
/* "maestro, ccw, copilot, claude, bmad", for messages. */
const char *format_names(void);

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
 * The state's extra.import holds the format and the
 * patch for a faithful export.
 */
int format_import(cJSON **state, cJSON **files, int *active, const struct format *f,
		  const cJSON *doc, const cJSON *project, char **err);

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

/* A ccw registry line for state, or a BMAD active-session pointer's id. */
int format_ccw_registry_line(char **out, const cJSON *state);
const char *format_bmad_pointer(const cJSON *doc);

/* Equal as data: same keys, same values; key order aside. */
int format_equal(const cJSON *a, const cJSON *b);

#endif
