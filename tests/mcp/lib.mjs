// lib.mjs - a connected MCP client for the tests: the official SDK
// speaking to `git session mcp` in the current directory.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import assert from "node:assert/strict";

export async function connect() {
	const transport = new StdioClientTransport({
		command: "git",
		args: ["session", "mcp"],
		cwd: process.cwd(),
		env: process.env,
		stderr: "inherit",
	});
	const client = new Client({ name: "git-session-tests", version: "1.0.0" });
	await client.connect(transport);
	return client;
}

// Calls a tool that must succeed; returns its structured result.
export async function call(client, name, args = {}) {
	const r = await client.callTool({ name, arguments: args });
	assert.ok(!r.isError, `${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
	assert.equal(r.content[0].type, "text");
	return r.structuredContent;
}

// Calls a tool that must fail; returns the text it gives.
export async function fails(client, name, args = {}) {
	const r = await client.callTool({ name, arguments: args });
	assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail`);
	return r.content[0].text;
}

export { assert };
