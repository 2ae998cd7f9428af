/*
 * remote-internal.h - session.remote for push, pull and the pre-push
 * hook: the remote they use by default, and, once it is set, the only
 * one sessions are pushed to. Not for other folders.
 */
#ifndef GIT_SESSION_REMOTE_INTERNAL_H
#define GIT_SESSION_REMOTE_INTERNAL_H

#include "git-session/store.h"

/*
 * session.remote in *out (the caller frees it) when it is set and names
 * a configured remote, NULL when it is unset; an error saying what is
 * wrong with it otherwise.
 */
int remote_sessions(char **out, gs_store *st);
/*
 * Whether url is where the sessions remote is: one of its URLs, fetch or
 * push, as git rewrites them (insteadOf); a local repository is the
 * directory its path or file:// URL resolves to, a URL is compared
 * trailing slashes aside.
 */
int remote_is_sessions_url(int *same, gs_store *st, const char *sessions, const char *url);
/*
 * The remote push or pull goes to in *out (the caller frees it): named,
 * or session.remote, or origin. A push to another remote than
 * session.remote, at another URL, is refused unless allow_other.
 */
int remote_for_sync(char **out, gs_store *st, const char *named, int push, int allow_other);

#endif
