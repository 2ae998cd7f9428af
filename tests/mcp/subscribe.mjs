// subscribe.mjs - subscribe to the active session, change it from the
// command line, and receive the update; then read it.
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { execFileSync } from "node:child_process";
import { connect, assert } from "./lib.mjs";

const client = await connect();
const updated = [];
let wake = null;
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
	updated.push(n.params.uri);
	if (wake) wake();
});
// wait for the next update, failing after a generous deadline
const next = (what) => new Promise((resolve, reject) => {
	const timer = setTimeout(() => reject(new Error(`no update after ${what}`)), 20000);
	wake = () => { clearTimeout(timer); resolve(); };
});

await client.subscribeResource({ uri: "git-session://active" });
await client.subscribeResource({ uri: "git-session://sessions/watched" });
let arrived = next("a note from the shell");
execFileSync("git", ["session", "note", "-q", "from the shell"]);
await arrived;
assert.ok(updated.includes("git-session://active"));
const read = await client.readResource({ uri: "git-session://active" });
const state = JSON.parse(read.contents[0].text);
assert.equal(state.notes.at(-1).text, "from the shell");

// switching sessions changes what the active resource is
updated.length = 0;
arrived = next("a switch");
execFileSync("git", ["session", "start", "other", "--id", "other", "--pause-current", "-q"]);
await arrived;
assert.ok(updated.includes("git-session://active"));
assert.ok(!updated.includes("git-session://sessions/watched") || updated.length > 1);

// unsubscribed, nothing more comes for it
await client.unsubscribeResource({ uri: "git-session://active" });
await client.unsubscribeResource({ uri: "git-session://sessions/watched" });
await assert.rejects(client.subscribeResource({ uri: "file:///etc/passwd" }), { code: -32002 });
await client.close();
console.log(JSON.stringify({ updates: "received" }));
