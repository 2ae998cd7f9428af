// model-server.js - a scripted model on 127.0.0.1 for the agent CLIs'
// end-to-end tests: it speaks enough of the Anthropic Messages API
// (POST /v1/messages, streamed), of the Gemini API (POST
// /v1beta/models/<m>:streamGenerateContent?alt=sse, and :generateContent)
// of OpenAI's Chat Completions (POST .../chat/completions, streamed or
// not; GET .../models) and of its Responses API (POST .../responses,
// streamed: Codex CLI) to make Claude Code, Gemini CLI and the CLIs that
// speak Chat Completions (Qwen Code, Copilot CLI, OpenCode) call the tools
// a script names, with no network.
//
//   node model-server.js <script.json> <port-file>
//
// The script is a list of conversations: {"match": "<text>", "calls":
// [{"name": "Write", "input": {...}}, ...], "answer": "<text>"}. A request
// gets the calls of the conversation its newest matching user message
// names, one by one, then the answer: so one resumed session runs several
// conversations in turn. A request for a summary (a compaction) gets the
// "summary" of the entry whose match is "/compact" (or a fixed one) in the
// CLI's summary markup; any other request (a title) gets "ok". Each answer
// reports usage, so that the transcripts carry tokens. A call with
// "custom": true is a free-form tool call, its "input" a string (Copilot
// CLI's apply_patch): in Chat Completions, {"type": "custom", "custom":
// {name, input}}. MODEL_SERVER_LOG
// names a file that gets each request's method and path; MODEL_SERVER_BODIES
// one that gets each body too.
'use strict';
const http = require('http');
const fs = require('fs');

const script = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const log = process.env.MODEL_SERVER_LOG;
const bodies = process.env.MODEL_SERVER_BODIES;

// what the user said: not the context a hook added, which Gemini CLI puts before the prompt
// (git-session's brief quotes earlier prompts)
function textOf(content) {
	const text = typeof content === 'string' ? content : (content || []).map((b) => b.text || '').join(' ');
	return text.replace(/<hook_context>[\s\S]*?<\/hook_context>/g, '');
}

function pick(userTexts) {
	return script.find((c) => userTexts.some((t) => t.includes(c.match)));
}

// The conversation of a history (a list of {user, text, calls}: user true
// for a user's message, text its text, calls true when a model's message
// calls tools): the script entry the newest user message holding a match
// names (the CLIs add messages of their own after a prompt), and the next of
// its calls, when fewer were made since.
function converse(turns) {
	for (let i = turns.length - 1; i >= 0; i--) {
		const conv = turns[i].user && pick([turns[i].text]);
		if (!conv) continue;
		const made = turns.slice(i + 1).filter((t) => t.calls).length;
		return { conv, call: (conv.calls || [])[made] };
	}
	return {};
}

// what Claude Code's /compact and Gemini CLI's /compress ask for
const compactPrompt = /create a detailed summary of the conversation|<state_snapshot>/;

function summary(gemini) {
	const c = script.find((e) => e.match === '/compact');
	const text = c && c.summary ? c.summary : 'The conversation so far, summarized.';
	return gemini ? `<state_snapshot>\n<overall_goal>${text}</overall_goal>\n</state_snapshot>` :
		`<analysis>The session so far.</analysis>\n<summary>${text}</summary>`;
}

// done: OpenAI's streams end with "data: [DONE]"
function sse(res, events, done) {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	for (const [name, data] of events) {
		if (name) res.write(`event: ${name}\n`);
		res.write(`data: ${JSON.stringify(data)}\n\n`);
	}
	if (done) res.write('data: [DONE]\n\n');
	res.end();
}

let seq = 0;

function anthropic(req, res) {
	const msgs = req.messages || [];
	const turns = msgs.map((m) => ({
		user: m.role === 'user',
		text: textOf(m.content),
		calls: m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use'),
	}));
	const compacting = turns.length > 0 && compactPrompt.test(turns[turns.length - 1].text);
	const { conv, call } = req.tools && req.tools.length && !compacting ? converse(turns) : {};
	const id = `msg_${++seq}`;
	const events = [['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant',
		model: req.model, content: [], stop_reason: null, stop_sequence: null,
		usage: { input_tokens: 100 + seq, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } }]];
	if (call) {
		events.push(['content_block_start', { type: 'content_block_start', index: 0,
			content_block: { type: 'tool_use', id: `toolu_${seq}`, name: call.name, input: {} } }]);
		events.push(['content_block_delta', { type: 'content_block_delta', index: 0,
			delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } }]);
	} else {
		events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]);
		events.push(['content_block_delta', { type: 'content_block_delta', index: 0,
			delta: { type: 'text_delta', text: compacting ? summary() : conv ? conv.answer || 'Done.' : 'ok' } }]);
	}
	events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
	events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: call ? 'tool_use' : 'end_turn',
		stop_sequence: null }, usage: { output_tokens: 20 } }]);
	events.push(['message_stop', { type: 'message_stop' }]);
	sse(res, events);
}

// streamed: :streamGenerateContent, else :generateContent (a compression)
function gemini(req, res, streamed) {
	const contents = req.contents || [];
	const turns = contents.map((c) => ({
		user: c.role === 'user',
		text: textOf(c.parts),
		calls: c.role === 'model' && (c.parts || []).some((p) => p.functionCall),
	}));
	const compacting = turns.length > 0 && compactPrompt.test(turns[turns.length - 1].text);
	const { conv, call } = compacting ? {} : converse(turns);
	const part = call ? { functionCall: { name: call.name, args: call.input } } :
		{ text: compacting ? summary(true) : conv ? conv.answer || 'Done.' : 'ok' };
	seq++;
	const answer = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
		usageMetadata: { promptTokenCount: 200 + seq, candidatesTokenCount: 10, totalTokenCount: 210 + seq },
		modelVersion: 'gemini-test', responseId: `r${seq}` };
	if (streamed) return sse(res, [[null, answer]]);
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end(JSON.stringify(answer));
}

// OpenAI Chat Completions: {messages: [{role, content, tool_calls}], tools, stream}
function openaiChat(req, res) {
	const msgs = req.messages || [];
	const turns = msgs.map((m) => ({
		user: m.role === 'user',
		text: textOf(m.content),
		calls: m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0,
	}));
	const hasTools = Array.isArray(req.tools) && req.tools.length > 0;
	const { conv, call } = hasTools ? converse(turns) : {};
	const id = `chatcmpl-${++seq}`, created = Math.floor(Date.now() / 1000), model = req.model || 'test-model';
	const last = turns.length ? turns[turns.length - 1].text : '';
	// titles, summaries and checks with no tools get "ok" ({} when they ask for JSON)
	const text = call ? null : conv ? conv.answer || 'Done.' : /json/i.test(last) && !hasTools ? '{}' : 'ok';
	const usage = { prompt_tokens: 1000 + seq, completion_tokens: 20, total_tokens: 1020 + seq,
		prompt_tokens_details: { cached_tokens: 100 } };
	const tc = call && (call.custom ? { id: `call_${seq}`, type: 'custom', custom: { name: call.name, input: call.input } } :
		{ id: `call_${seq}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } });
	const finish = call ? 'tool_calls' : 'stop';
	if (!req.stream) {
		const message = { role: 'assistant', content: text };
		if (tc) message.tool_calls = [tc];
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ id, object: 'chat.completion', created, model,
			choices: [{ index: 0, message, finish_reason: finish }], usage }));
		return;
	}
	const chunk = (delta, finishReason) => [null, { id, object: 'chat.completion.chunk', created, model,
		choices: [{ index: 0, delta, finish_reason: finishReason }] }];
	const events = [chunk({ role: 'assistant', content: '' }, null)];
	if (tc && tc.custom) {
		events.push(chunk({ tool_calls: [{ index: 0, id: tc.id, type: 'custom', custom: { name: tc.custom.name, input: '' } }] }, null));
		events.push(chunk({ tool_calls: [{ index: 0, custom: { input: tc.custom.input } }] }, null));
	} else if (tc) {
		events.push(chunk({ tool_calls: [{ index: 0, id: tc.id, type: 'function', function: { name: tc.function.name, arguments: '' } }] }, null));
		events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: tc.function.arguments } }] }, null));
	} else {
		events.push(chunk({ content: text }, null));
	}
	events.push(chunk({}, finish));
	// the usage: a last chunk with no choices, as stream_options.include_usage asks
	events.push([null, { id, object: 'chat.completion.chunk', created, model, choices: [], usage }]);
	sse(res, events, true);
}

// OpenAI Responses: {input: [items], tools, stream} (Codex CLI). A call
// whose tool the request offers as {"type": "custom"} (Codex's free-form
// apply_patch) is a custom_tool_call with the input string; any other a
// function_call (in its namespace, when a namespace tool holds it). A
// sub-agent's task comes as an agent_message. Usage counts cached input
// within input, as the Responses API does.
function openaiResponses(req, res) {
	const items = Array.isArray(req.input) ? req.input : [{ type: 'message', role: 'user', content: req.input || '' }];
	const said = (c) => (c || []).map((b) => b.text || b.encrypted_content || '').join(' ');
	const turns = items.map((it) => ({
		user: (it.type === 'message' && it.role === 'user') || it.type === 'agent_message',
		text: it.type === 'message' ? textOf(it.content) : it.type === 'agent_message' ? said(it.content) : '',
		calls: ['function_call', 'custom_tool_call', 'local_shell_call'].includes(it.type),
	}));
	const tools = req.tools || [];
	const { conv, call } = tools.length ? converse(turns) : {};
	const n = ++seq, id = `resp_${n}`;
	let item;
	if (call) {
		const offered = tools.find((t) => t.name === call.name);
		const ns = tools.find((t) => t.type === 'namespace' && (t.tools || []).some((x) => x.name === call.name));
		item = offered && offered.type === 'custom' ?
			{ type: 'custom_tool_call', id: `ctc_${n}`, status: 'completed', call_id: `call_${n}`, name: call.name,
				input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input) } :
			{ type: 'function_call', id: `fc_${n}`, status: 'completed', call_id: `call_${n}`, name: call.name,
				arguments: JSON.stringify(call.input) };
		if (ns && item.type === 'function_call') item.namespace = ns.name;
	} else {
		item = { type: 'message', id: `msg_${n}`, status: 'completed', role: 'assistant',
			content: [{ type: 'output_text', text: conv ? conv.answer || 'Done.' : 'ok', annotations: [] }] };
	}
	const usage = { input_tokens: 1000 + n, input_tokens_details: { cached_tokens: 600 },
		output_tokens: 25, output_tokens_details: { reasoning_tokens: 5 }, total_tokens: 1025 + n };
	const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: req.model };
	if (req.stream === false) {
		res.writeHead(200, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ ...base, status: 'completed', output: [item], usage }));
	}
	const events = [['response.created', { type: 'response.created', response: { ...base, status: 'in_progress', output: [] } }],
		['response.output_item.added', { type: 'response.output_item.added', output_index: 0,
			item: item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : item }]];
	if (item.type === 'message')
		events.push(['response.output_text.delta', { type: 'response.output_text.delta', item_id: item.id,
			output_index: 0, content_index: 0, delta: item.content[0].text }]);
	events.push(['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }]);
	events.push(['response.completed', { type: 'response.completed',
		response: { ...base, status: 'completed', output: [item], usage } }]);
	sse(res, events);
}

const server = http.createServer((req, res) => {
	let body = '';
	req.on('data', (d) => { body += d; });
	req.on('end', () => {
		let parsed = {};
		try { parsed = body ? JSON.parse(body) : {}; } catch (e) { /* a GET */ }
		if (log) fs.appendFileSync(log, `${req.method} ${req.url}\n`);
		if (bodies) fs.appendFileSync(bodies, `${req.method} ${req.url} ${body}\n`);
		if (req.method === 'POST' && req.url.startsWith('/v1/messages/count_tokens')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ input_tokens: 100 }));
		} else if (req.method === 'POST' && req.url.startsWith('/v1/messages')) {
			anthropic(parsed, res);
		} else if (req.method === 'POST' && req.url.includes(':streamGenerateContent')) {
			gemini(parsed, res, true);
		} else if (req.method === 'POST' && req.url.includes(':generateContent')) {
			gemini(parsed, res, false);
		} else if (req.method === 'POST' && req.url.split('?')[0].endsWith('/chat/completions')) {
			openaiChat(parsed, res);
		} else if (req.method === 'POST' && req.url.split('?')[0].endsWith('/responses')) {
			openaiResponses(parsed, res);
		} else if (req.method === 'GET' && req.url.split('?')[0].endsWith('/models')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ object: 'list', data: [{ id: process.env.MODEL_SERVER_MODEL || 'test-model',
				object: 'model', created: 0, owned_by: 'test' }] }));
		} else if (req.method === 'POST' && req.url.includes(':countTokens')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ totalTokens: 100 }));
		} else {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end('{}');
		}
	});
});
// MODEL_SERVER_PORT: that port (a second server in a network namespace of its own), else any free one
server.listen(Number(process.env.MODEL_SERVER_PORT || 0), '127.0.0.1', () => {
	fs.writeFileSync(process.argv[3], String(server.address().port));
});
