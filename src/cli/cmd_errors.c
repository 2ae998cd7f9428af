/*
 * cmd_errors.c - printing what the library recorded (util.h): errors,
 * hints and warnings, on stderr or on the stream the MCP server gives.
 */
#include "git-session/cmd.h"
#include "git-session/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *messages;	/* NULL: stderr */

FILE *cmd_stderr(void)
{
	return messages ? messages : stderr;
}

void cmd_set_stderr(FILE *f)
{
	messages = f;
}

/* Text on the messages' stream, after what stdout holds so far, as git's vreportf. */
static void say(const char *text, size_t len)
{
	fflush(stdout);
	fwrite(text, 1, len, cmd_stderr());
}

void cmd_print_errors(void)
{
	char *text = gs_error_take();

	if (text)
		say(text, strlen(text));
	free(text);
}

void cmd_warn(const char *line)
{
	char *text = xstrfmt("%s\n", line);

	cmd_print_errors();	/* what went wrong before it, first */
	say(text, strlen(text));
	free(text);
}

void cmd_say(const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	cmd_print_errors();
	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fwrite(sb.buf, 1, sb.len, cmd_stderr());	/* stdout not flushed first, as fprintf did not */
	sbuf_release(&sb);
}
