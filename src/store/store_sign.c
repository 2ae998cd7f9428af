/*
 * store_sign.c - a checkpoint's commit. With session.sign, or else
 * commit.gpgSign, it is made by `git commit-tree -S`, so that it is
 * signed exactly as git signs a commit: gpg.format (openpgp, x509 or
 * ssh), user.signingKey, gpg.program and the rest of git's signing
 * configuration, and `git verify-commit` checks it. Store layer: libgit2
 * and git as a process.
 */
#include "git-session/store_run.h"
#include "git-session/util.h"
#include "store-internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether checkpoints are signed: session.sign, else commit.gpgSign; asked once, by the first commit. */
static int signing(int *out, gs_store *st)
{
	int git_sign;

	if (st->sign < 0 && (store_config_bool(&git_sign, st, "commit.gpgSign", 0) < 0 ||
			     store_config_bool(&st->sign, st, "session.sign", git_sign) < 0))
		return GS_ERROR;
	*out = st->sign;
	return 0;
}

/*
 * How long the signer may take, in ms (0: no limit): session.signTimeout
 * seconds; else, where standard input is no terminal (hooks, the agents'
 * hooks, the MCP server: nobody to answer a prompt), 10 s or what
 * store_set_sign_limit set; at a terminal no limit, as a passphrase
 * prompt may be waiting for the user.
 */
static int sign_timeout(int *ms, gs_store *st)
{
	int64_t secs, def = isatty(0) ? 0 : st->sign_limit ? st->sign_limit : 10;

	if (store_config_int(&secs, st, "session.signTimeout", def) < 0)
		return GS_ERROR;
	if (secs < 0 || secs > 86400)
		return gs_error("bad session.signTimeout '%lld': seconds, from 1 to 86400, or 0 for no limit",
				(long long)secs);
	*ms = (int)secs * 1000;
	return 0;
}

void store_set_sign_limit(gs_store *st, int seconds)
{
	st->sign_limit = seconds;
}

/* "GIT_AUTHOR_NAME=..." and the rest, from a libgit2 signature. */
static void ident_env(char **env, const char *who, const git_signature *sig)
{
	int off = sig->when.offset;

	env[0] = xstrfmt("GIT_%s_NAME=%s", who, sig->name);
	env[1] = xstrfmt("GIT_%s_EMAIL=%s", who, sig->email);
	env[2] = xstrfmt("GIT_%s_DATE=@%lld %c%02d%02d", who, (long long)sig->when.time, off < 0 ? '-' : '+',
			 abs(off) / 60, abs(off) % 60);
}

/* A loose object git wrote: durable, as the store's own are. */
static void sync_object(gs_store *st, const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1], *path;

	git_oid_tostr(hex, sizeof(hex), id);
	path = xstrfmt("%sobjects/%.2s/%s", git_repository_commondir(st->repo), hex, hex + 2);
	store_fsync_path(path);
	*strrchr(path, '/') = '\0';
	store_fsync_path(path);
	free(path);
}

static int sign_commit(git_oid *out, gs_store *st, const git_signature *author, const git_signature *committer,
		       const char *message, const git_tree *tree, size_t nparents, const git_commit **parents)
{
	char hexes[3][GIT_OID_HEXSZ + 1], *env[7] = { NULL };
	const char *args[16];
	struct sbuf sb = SBUF_INIT;
	size_t n = 0;
	int rc, timeout_ms = 0, error = GS_ERROR;

	if (sign_timeout(&timeout_ms, st) < 0)
		return GS_ERROR;
	ident_env(env, "AUTHOR", author);
	ident_env(env + 3, "COMMITTER", committer);
	args[n++] = "git";
	args[n++] = "commit-tree";
	args[n++] = "-S";
	git_oid_tostr(hexes[0], sizeof(hexes[0]), git_tree_id(tree));
	args[n++] = hexes[0];
	for (size_t i = 0; i < nparents && i < 2; i++) {
		git_oid_tostr(hexes[i + 1], sizeof(hexes[i + 1]), git_commit_id(parents[i]));
		args[n++] = "-p";
		args[n++] = hexes[i + 1];
	}
	args[n++] = "-m";
	args[n++] = message;
	args[n] = NULL;
	rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .env = (const char *const *)env,
					.out = &sb, .timeout_ms = timeout_ms });
	if (rc == GS_ETIMEDOUT) {
		gs_error("signing the checkpoint timed out after %d s (session.signTimeout): the signer was "
			 "stopped and nothing was written", timeout_ms / 1000);
		gs_hint("check that gpg.program (gpg.ssh.program for gpg.format=ssh) signs without waiting for "
			"input, or raise session.signTimeout");
		error = GS_ETIMEDOUT;
		goto cleanup;
	}
	while (sb.len && (sb.buf[sb.len - 1] == '\n'))
		sb.buf[--sb.len] = '\0';
	if (rc != 0 || !sb.buf || git_oid_fromstr(out, sb.buf) < 0) {
		gs_error("cannot sign the checkpoint ('git commit-tree -S' failed); nothing was written");
		gs_hint("check gpg.format and user.signingKey, or turn signing off with "
			"'git config session.sign false'");
		goto cleanup;
	}
	if (st->sync_objects == STORE_SYNC_EACH)
		sync_object(st, out);
	error = 0;
cleanup:
	for (size_t i = 0; i < 6; i++)
		free(env[i]);
	sbuf_release(&sb);
	return error;
}

int store_commit_create(git_oid *out, gs_store *st, const git_signature *author, const git_signature *committer,
			const char *encoding, const char *message, const git_tree *tree, size_t nparents,
			const git_commit **parents)
{
	int sign;

	if (signing(&sign, st) < 0)
		return GS_ERROR;
	if (sign)
		return sign_commit(out, st, author, committer, message, tree, nparents, parents);
	if (git_commit_create(out, st->repo, NULL, author, committer, encoding, message, tree, nparents, parents) < 0)
		return store_git_error("cannot write the checkpoint's commit");
	return 0;
}
