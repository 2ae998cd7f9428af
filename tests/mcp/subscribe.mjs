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
// wait until every uri in want has been updated, failing after a generous deadline
const updates = (what, want) => new Promise((resolve, reject) => {
	const timer = setTimeout(() => reject(new Error(`no update of ${want} after ${what}: ${updated}`)), 20000);
	wake = () => {
		if (want.every((uri) => updated.includes(uri))) {
			clearTimeout(timer);
			resolve();
		}
	};
});

await client.subscribeResource({ uri: "git-session://active" });
await client.subscribeResource({ uri: "git-session://sessions/watched" });
let arrived = updates("a note from the shell", ["git-session://active", "git-session://sessions/watched"]);
execFileSync("git", ["session", "note", "-q", "from the shell"]);
await arrived;
const read = await client.readResource({ uri: "git-session://active" });
const state = JSON.parse(read.contents[0].text);
assert.equal(state.notes.at(-1).text, "from the shell");

// starting another session pauses this one, and changes what "active" is
updated.length = 0;
arrived = updates("a new session", ["git-session://active", "git-session://sessions/watched"]);
execFileSync("git", ["session", "start", "other", "--id", "other", "--pause-current", "-q"]);
await arrived;
const now = JSON.parse((await client.readResource({ uri: "git-session://active" })).contents[0].text);
assert.equal(now.session_id, "other");

// unsubscribed, nothing more comes for it
await client.unsubscribeResource({ uri: "git-session://active" });
await client.unsubscribeResource({ uri: "git-session://sessions/watched" });
await assert.rejects(client.subscribeResource({ uri: "file:///etc/passwd" }), { code: -32002 });
await client.close();
console.log(JSON.stringify({ updates: "received" }));
