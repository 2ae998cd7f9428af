// orchestrate.mjs - a scripted orchestration entirely through tool calls,
// with the SDK checking every result against the tool's output schema.
// Prints what the shell test checks with plain git.
import { connect, call, fails, assert } from "./lib.mjs";

const client = await connect();
assert.equal(client.getServerVersion().name, "git-session");
assert.ok(client.getServerCapabilities().resources.subscribe);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, [
	"agent_update", "artifact_record", "checkpoint", "decision_record", "error_record", "file_record",
	"milestone_update", "note_add", "phase_add", "phase_update", "session_close", "session_diff",
	"session_list", "session_pause", "session_reopen", "session_restore", "session_resume", "session_show", "session_start",
	"session_status", "session_switch", "summary_set", "task_update", "tokens_add", "tokens_budget", "tokens_report",
]);
for (const t of tools) {
	assert.equal(t.inputSchema.type, "object", t.name);
	assert.equal(t.inputSchema.additionalProperties, false, t.name);
	assert.equal(t.outputSchema.type, "object", t.name);
	assert.ok(t.description.length > 20 && t.description.length < 300, t.name);
	for (const [k, p] of Object.entries(t.inputSchema.properties)) assert.ok(p.type && p.description, `${t.name}.${k}`);
}
const phase = tools.find((t) => t.name === "phase_update");
assert.deepEqual(phase.inputSchema.required, ["phase", "action"]);
assert.deepEqual(phase.inputSchema.properties.action.enum, ["start", "complete", "fail", "skip", "retry", "step"]);

const id = "mcp-orchestration";
let r = await call(client, "session_start", { topic: "Add OAuth login", id, goal: "log in with GitHub", phases: ["Design", "Build"] });
assert.equal(r.session, id);
assert.match(r.checkpoint, /^[0-9a-f]{40}$/);
await call(client, "phase_update", { phase: 1, action: "start" });
await call(client, "agent_update", { agent: "arch-1", action: "start", type: "architect", task: "design the flow" });
await call(client, "agent_update", { agent: "arch-1", action: "progress", percent: 60 });
await call(client, "tokens_add", { agent: "arch-1", input: 1200, output: 300 });
await call(client, "file_record", { status: "created", paths: ["design.md"], agent: "arch-1" });
await call(client, "decision_record", { decision: "use PKCE", rationale: "no client secret in the app" });
await call(client, "agent_update", { agent: "arch-1", action: "done", summary: "flow designed" });
r = await call(client, "phase_update", { phase: 1, action: "complete", context: "PKCE flow in design.md" });
assert.match(r.subject, /^phase 1 "Design": in_progress -> completed/);
await call(client, "phase_update", { phase: 2, action: "start" });
await call(client, "agent_update", { agent: "coder-1", action: "start", type: "coder", task: "implement" });
await call(client, "agent_update", { agent: "coder-1", action: "fail", error: "tests fail", error_type: "runtime" });
await call(client, "phase_update", { phase: 2, action: "fail", error: "the coder failed", error_type: "runtime" });
await call(client, "phase_update", { phase: 2, action: "retry" });
await call(client, "error_record", { action: "add", type: "validation", message: "lint warnings" });
await call(client, "error_record", { action: "resolve", number: 3, resolution: "fixed the lint" });
await call(client, "task_update", { action: "add", title: "write the docs" });
await call(client, "task_update", { action: "done", number: 1 });
await call(client, "milestone_update", { action: "add", name: "design approved" });
await call(client, "milestone_update", { action: "done", name: "design approved" });
await call(client, "artifact_record", { path: "design.md", agent: "arch-1", phase: 1 });
await call(client, "note_add", { text: "-- a note that looks like an option", agent: "coder-1" });
await call(client, "summary_set", { text: "design done, build retried" });
r = await call(client, "checkpoint", { paths: ["design.md"], message: "after the retry" });
const last = r.checkpoint;

// what failed is a tool result with the command line's message, and nothing changes
let text = await fails(client, "phase_update", { phase: 1, action: "start" });
assert.match(text, /^error: cannot start phase 1 "Design": it is completed/);
text = await fails(client, "note_add", {});
assert.match(text, /^error: note_add needs the argument 'text'/);
text = await fails(client, "note_add", { text: "x", colour: "red" });
assert.match(text, /takes no argument 'colour'/);
text = await fails(client, "phase_update", { phase: "two", action: "start" });
assert.match(text, /argument 'phase' must be an integer$/);
await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), /unknown tool 'no_such_tool'/);

// reads
const status = await call(client, "session_status");
assert.equal(status.session_id, id);
assert.equal(status.checkpoint, last);
const resume = await call(client, "session_resume", { dry_run: true });
assert.equal(resume.session_id, id);
assert.deepEqual(resume.conflicts, []);
const list = await call(client, "session_list");
assert.deepEqual(list.sessions.map((s) => s.id), [id]);
assert.equal(list.sessions[0].active, true);
const shown = await call(client, "session_show", { revision: `${id}~1` });
assert.equal(shown.session_id, id);
assert.equal(shown.context_summary, "design done, build retried");
const diff = await call(client, "session_diff", { from: `${id}~3` });
assert.equal(diff.to, last);
assert.ok(Array.isArray(diff.notes));
const tokens = await call(client, "tokens_report");
assert.equal(tokens.input, 1200);

// resources
const { resources } = await client.listResources();
assert.deepEqual(resources.map((x) => x.uri).sort(), ["git-session://active", `git-session://sessions/${id}`]);
const { resourceTemplates } = await client.listResourceTemplates();
assert.equal(resourceTemplates[0].uriTemplate, "git-session://sessions/{id}");
const read = await client.readResource({ uri: `git-session://sessions/${id}` });
const state = JSON.parse(read.contents[0].text);
assert.equal(state.phases[1].retry_count, 1);
await assert.rejects(client.readResource({ uri: "git-session://sessions/none-such" }),
	{ code: -32002, message: /unknown revision or session 'none-such'$/ });
await assert.rejects(client.readResource({ uri: "https://example.com/" }), { code: -32002 });

await call(client, "session_pause");
text = await fails(client, "note_add", { text: "while paused" });
assert.match(text, /is paused/);
await client.close();
console.log(JSON.stringify({ id, last }));
