/*
 * pager.h - long output through git's pager when stdout is a terminal:
 * GIT_PAGER, then core.pager, then PAGER, then less (LESS=FRX, LV=-c
 * unless set), as git chooses. Command layer.
 */
#ifndef GIT_SESSION_PAGER_H
#define GIT_SESSION_PAGER_H

#include "git-session/cmd.h"

/*
 * Sends the rest of stdout to the pager, when there is one to use and
 * the command's row says USE_PAGER: called once the command knows it has
 * something to show, so that an error is not paged.
 */
void pager_start(struct cmd_ctx *c);
/* Ends the pager's input and waits for it to exit (main calls it). */
void pager_finish(struct cmd_ctx *c);

#endif
