// brief.mjs - the session's brief through the SDK client: the
// session-brief prompt, with and without its argument, and the brief
// resource. Prints "ok <the brief's goal line>".
import { connect, assert } from "./lib.mjs";

const client = await connect();
assert.ok(client.getServerCapabilities().prompts);
const { prompts } = await client.listPrompts();
assert.deepEqual(prompts.map((p) => p.name), ["session-brief"]);
assert.deepEqual(prompts[0].arguments.map((a) => [a.name, a.required]), [["session", false]]);

const active = await client.getPrompt({ name: "session-brief" });
assert.equal(active.messages.length, 1);
assert.equal(active.messages[0].role, "user");
const text = active.messages[0].content.text;
const id = /^Session (\S+) /m.exec(text)[1];
const named = await client.getPrompt({ name: "session-brief", arguments: { session: id } });
assert.equal(named.messages[0].content.text, text);
await assert.rejects(client.getPrompt({ name: "session-brief", arguments: { session: "no-such-session" } }),
	/no session 'no-such-session'/);

const { contents } = await client.readResource({ uri: `git-session://sessions/${id}/brief` });
assert.equal(contents[0].mimeType, "text/markdown");
assert.equal(contents[0].text, text);
assert.ok(Buffer.byteLength(text) <= 6000);
await client.close();
console.log(`ok ${/^Goal: .*$/m.exec(text)[0]}`);
