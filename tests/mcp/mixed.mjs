// mixed.mjs - an agent through MCP and a person at the shell write the
// same session at once: every note of both must be there.
import { spawn } from "node:child_process";
import { connect, call, assert } from "./lib.mjs";

const n = Number(process.argv[2] || 40);
const client = await connect();
const shell = spawn("sh", ["-c", `i=0; while test $i -lt ${n}; do git session note -q "shell $i" || exit 1; i=$((i + 1)); done`],
	{ stdio: "inherit" });
const shellDone = new Promise((resolve, reject) =>
	shell.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the shell loop exited ${code}`)))));
for (let i = 0; i < n; i++) {
	// the checkpoint reported is this call's, whatever the shell wrote meanwhile
	const r = await call(client, "note_add", { text: `mcp ${i}` });
	assert.equal(r.subject, `note: "mcp ${i}"`);
}
await shellDone;
const state = JSON.parse((await client.readResource({ uri: "git-session://active" })).contents[0].text);
const texts = new Set(state.notes.map((x) => x.text));
for (let i = 0; i < n; i++) {
	assert.ok(texts.has(`mcp ${i}`), `mcp ${i}`);
	assert.ok(texts.has(`shell ${i}`), `shell ${i}`);
}
await client.close();
console.log(JSON.stringify({ notes: state.notes.length }));
