// git-session's plugin for OpenCode, written by `git session hooks install --agent opencode`
// and removed by `git session hooks uninstall --agent opencode`. It needs no package (it
// imports only Node's child_process), so OpenCode has nothing to install for it. Each event
// goes as JSON on stdin to the command below; where git-session is missing, nothing happens.
// A tool call git-session refuses (the session's token budget) throws: OpenCode does not run it.
import { spawnSync } from "node:child_process"

const COMMAND = "git-session hook opencode"

export const GitSession = async ({ directory }) => {
  const parents = {}, tasks = {}, started = {}, usage = {}, replies = {}, answers = {}
  const root = (id) => (parents[id] ? parents[id].root : id)
  const send = (event, id, body) => {
    body.event = event
    body.sessionID = root(id)
    if (parents[id]) body.subagent = { id, type: parents[id].type }
    let text
    try { text = JSON.stringify(body) } catch (e) { return null }
    return spawnSync("/bin/sh", ["-c", "command -v git-session >/dev/null 2>&1 || exit 0; " + COMMAND + " \"$0\"", event],
      { input: text, cwd: directory, encoding: "utf8", timeout: 10000 })
  }
  // the turn's tokens, each message's last count: input without the cached tokens, output with the reasoning
  const turn = (id) => {
    const u = { input: 0, output: 0, cached: 0 }
    let any = false
    for (const t of Object.values(usage[id] || {})) {
      u.input += (t.input || 0) + ((t.cache && t.cache.write) || 0)
      u.output += (t.output || 0) + (t.reasoning || 0)
      u.cached += (t.cache && t.cache.read) || 0
      any = true
    }
    delete usage[id]
    return any ? u : undefined
  }
  return {
    "chat.message": async (input, output) => {
      if (!parents[input.sessionID]) send("chat.message", input.sessionID, { input, output })
    },
    "tool.execute.before": async (input, output) => {
      if (input.tool === "task" && output && output.args) tasks[input.sessionID] = output.args.subagent_type
      started[input.callID] = Date.now()
      const r = send("tool.execute.before", input.sessionID, { input, output })
      if (r && r.status === 2) throw new Error((r.stderr || "").trim() || "git-session refused the tool call")
    },
    "tool.execute.after": async (input, output) => {
      const ms = started[input.callID] === undefined ? undefined : Date.now() - started[input.callID]
      delete started[input.callID]
      send("tool.execute.after", input.sessionID, { input, output, ms })
    },
    event: async ({ event }) => {
      const p = event.properties || {}, info = p.info || {}, part = p.part || {}
      if (event.type === "session.created" && info.parentID) {
        parents[info.id] = { root: root(info.parentID), type: tasks[info.parentID] || "subagent" }
        send("subagent.start", info.id, {})
      } else if (event.type === "session.created" && info.id) {
        send("session.created", info.id, {})
      } else if (event.type === "message.updated" && info.role === "assistant" && info.tokens) {
        answers[info.id] = true;
        (usage[info.sessionID] = usage[info.sessionID] || {})[info.id] = info.tokens
      } else if (event.type === "message.part.updated" && part.type === "text" && answers[part.messageID]) {
        replies[part.sessionID] = part.text
      } else if (event.type === "session.idle" && p.sessionID) {
        const id = p.sessionID
        send(parents[id] ? "subagent.stop" : "session.idle", id, { usage: turn(id), reply: replies[id] })
        delete replies[id]
      } else if (event.type === "session.compacted" && p.sessionID) {
        send("session.compacted", p.sessionID, {})
      }
    },
  }
}
