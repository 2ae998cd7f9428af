/*
 * worktree.h - the working tree side of the manifest: turning what a user
 * typed into a repository-relative path, and hashing files into blobs.
 * Part of the store layer (it writes blobs through libgit2).
 */
#ifndef GIT_SESSION_WORKTREE_H
#define GIT_SESSION_WORKTREE_H

#include <cjson/cJSON.h>

#include "git-session/store.h"

/*
 * Normalises arg (relative to the current directory, or absolute) into a
 * path relative to the top of the working tree. Refuses paths outside
 * it and paths into .git. The caller frees *out.
 */
int worktree_relpath(char **out, gs_store *st, const char *arg);

/*
 * Hashes the working tree's path into a blob (git's filters applied) and
 * adds {"oid", "status", "size", "mtime", "ino"} under path in files.
 * A missing file is added with status "deleted" and no oid when
 * allow_missing, else refused. status NULL: "modified".
 */
int worktree_record(cJSON *files, gs_store *st, const char *path, const char *status,
		    int allow_missing);

#endif
