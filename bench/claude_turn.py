#!/usr/bin/env python3
# claude_turn.py <transcript> <turn> <cwd> <session-id>: appends one turn to a
# transcript in the shape Claude Code 2.1 writes: the prompt, the attachments
# and request records it keeps for itself (most of the bytes: ~130 KB a
# turn, as in a real run), a Write tool call and its result, the reply with
# its usage. For make bench: what an end-of-turn hook reads.
import json, sys

path, turn, cwd, sid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
common = {"isSidechain": False, "userType": "external", "entrypoint": "sdk-cli", "cwd": cwd,
          "sessionId": sid, "version": "2.1.330", "gitBranch": "main"}
at = "2026-11-21T10:%02d:%02d.000Z" % (turn // 60 % 60, turn % 60)
prose = ("As you answer the user's questions, you can use the following context. The project keeps its "
         "sources under src/ and its tests under tests/; run make before committing. ")


def uid(kind, i=0):
    return "%08x-0000-4000-8000-%012x" % (turn, kind * 1000 + i)


def line(**rec):
    return json.dumps(rec, separators=(",", ":")) + "\n"


out = [line(type="queue-operation", operation="enqueue", timestamp=at, sessionId=sid, content="prompt %d" % turn),
       line(parentUuid=None, promptId=uid(9), type="user", uuid=uid(1), timestamp=at,
            message={"role": "user", "content": "step %d: add the next function and its test" % turn}, **common)]
for i in range(8):	# attachments the CLI re-sends every turn
    out.append(line(parentUuid=uid(1), type="attachment", uuid=uid(2, i), timestamp=at,
                    attachment={"type": "environment", "snapshot": {"workingDirectory": cwd, "platform": "linux"}},
                    rendered=[{"content": "<system-reminder>\n" + prose * 55 + "\n</system-reminder>",
                               "role": "system"}], **common))
out.append(line(type="api-request-shape", sessionId=sid, timestamp=at, version="2.1.330",
                shape={"system": [{"type": "text", "text": prose * 150}],
                       "tools": [{"name": "Tool%d" % i, "description": prose * 3,
                                  "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}}
                                 for i in range(20)]}))
for i in range(2):
    out.append(line(type="api-request-blob", sessionId=sid, hash="%064x" % (turn * 10 + i),
                    message={"role": "user", "content": [{"type": "text", "text": prose * 40}]}))
usage = {"input_tokens": 1000 + turn, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 500,
         "output_tokens": 200}
out.append(line(parentUuid=uid(1), type="assistant", uuid=uid(3), timestamp=at,
                message={"id": "msg_%d_1" % turn, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                         "content": [{"type": "tool_use", "id": "toolu_%d" % turn, "name": "Write",
                                      "input": {"file_path": cwd + "/agent-file.c", "content": "int f%d;\n" % turn}}],
                         "stop_reason": "tool_use", "usage": usage}, **common))
out.append(line(parentUuid=uid(3), promptId=uid(9), type="user", uuid=uid(4), timestamp=at,
                message={"role": "user", "content": [{"tool_use_id": "toolu_%d" % turn, "type": "tool_result",
                                                      "content": "File created successfully"}]}, **common))
out.append(line(parentUuid=uid(4), type="assistant", uuid=uid(5), timestamp=at,
                message={"id": "msg_%d_2" % turn, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                         "content": [{"type": "text", "text": "Added f%d and its test; make passes." % turn}],
                         "stop_reason": "end_turn", "usage": usage}, **common))
out.append(line(type="last-prompt", lastPrompt="step %d" % turn, leafUuid=uid(5), sessionId=sid))
out.append(line(type="cost-state", sessionId=sid, totalCostUSD=0.004 * turn, totalDuration=1550 * turn))
with open(path, "a") as f:
    f.writelines(out)
