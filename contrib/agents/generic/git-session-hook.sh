#!/bin/sh
# <agent>-hook.sh <event>: feeds one event of "myagent" to git-session; nothing where it is missing
command -v git-session >/dev/null 2>&1 || exit 0
python3 -c 'import json,os,sys; print(json.dumps({"version": 1, "agent": "myagent", "session_id": os.environ.get("MYAGENT_SESSION", ""), "prompt": os.environ.get("MYAGENT_PROMPT"), "tool": os.environ.get("MYAGENT_TOOL"), "path": os.environ.get("MYAGENT_FILE"), "command": os.environ.get("MYAGENT_COMMAND")}))' |
	git-session hook generic "$1"
