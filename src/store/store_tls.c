/*
 * store_tls.c - Debian's libgit2 is built with mbedTLS, whose
 * initialisation inside git_libgit2_init() parses the whole system CA
 * bundle: most of libgit2's start-up, paid by every command although
 * none needs certificates (push and pull run git itself, which talks to
 * remotes). This file interposes the one mbedTLS function that does the
 * parsing, and it loads nothing: an empty chain, so an HTTPS connection
 * made through libgit2 would fail verification, never succeed
 * unverified. With another TLS backend the function is simply never
 * called. A command that one day talks to a remote through libgit2 has
 * to load them here first.
 */
#include "store-internal.h"

void store_global_init(void)
{
	git_libgit2_init();
	/*
	 * As git does, trust the object store on ordinary reads: re-hashing
	 * every object read is most of a read's cost on a large state.
	 * fsck hashes what it reads itself (store_fsck.c).
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
}

void store_global_shutdown(void)
{
	git_libgit2_shutdown();
}

#ifdef GS_STATIC_LIBGIT2
/*
 * Linked statically, the linker's --wrap routes libgit2's calls here,
 * and every command skips all of its network start-up: mbedTLS (the CA
 * bundle, and an entropy pool seeded by HAVEGE) and libssh2 (OpenSSL
 * loading its error strings) -- two thirds of git_libgit2_init(). The
 * real ones are never called.
 */
int __wrap_git_mbedtls_stream_global_init(void);
int __wrap_libssh2_init(int flags);

int __wrap_git_mbedtls_stream_global_init(void)
{
	return 0;
}

int __wrap_libssh2_init(int flags)
{
	(void)flags;
	return 0;
}

/*
 * The same for what only a remote reached through libgit2 would use:
 * SSH (libssh2, and the OpenSSL behind it, whose start-up probes the
 * CPU) and HTTP's Negotiate authentication (GSSAPI and five Kerberos
 * libraries, loaded by every process: ~0.4 ms of CPU). Defined here,
 * libgit2's own are never linked, nor what they need.
 */
int git_transport_ssh_global_init(void);
int git_smart_subtransport_ssh(void **out, void *owner, void *param);
int git_transport_ssh_with_paths(void **out, void *owner, void *payload);

int git_transport_ssh_global_init(void)
{
	return 0;
}

static int no_ssh(void **out)
{
	*out = NULL;
	git_error_set_str(GIT_ERROR_NET, "SSH is not available in git-session (it runs git for remotes)");
	return -1;
}

int git_smart_subtransport_ssh(void **out, void *owner, void *param)
{
	(void)owner;
	(void)param;
	return no_ssh(out);
}

int git_transport_ssh_with_paths(void **out, void *owner, void *payload)
{
	(void)owner;
	(void)payload;
	return no_ssh(out);
}

int git_http_auth_negotiate(void **out, const void *url);

int git_http_auth_negotiate(void **out, const void *url)
{
	(void)url;
	*out = NULL;
	git_error_set_str(GIT_ERROR_NET, "Negotiate authentication is not available in git-session (it runs git for remotes)");
	return -1;
}
#else
int mbedtls_x509_crt_parse_file(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}
#endif
