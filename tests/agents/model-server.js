// model-server.js - a scripted model on 127.0.0.1 for the agent CLIs'
// end-to-end tests: it speaks enough of the Anthropic Messages API
// (POST /v1/messages, streamed) and of the Gemini API
// (POST /v1beta/models/<m>:streamGenerateContent?alt=sse) to make Claude
// Code and Gemini CLI call the tools a script names, with no network.
//
//   node model-server.js <script.json> <port-file>
//
// The script is a list of conversations: {"match": "<text>", "calls":
// [{"name": "Write", "input": {...}}, ...]}. A request whose user text
// holds match gets the next call its history has not made yet, then a
// last text answer; any other request (a title, a summary) gets "ok".
// Each answer reports usage, so that the transcripts carry tokens.
'use strict';
const http = require('http');
const fs = require('fs');

const script = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const log = process.env.MODEL_SERVER_LOG;

function textOf(content) {
	if (typeof content === 'string') return content;
	return (content || []).map((b) => b.text || '').join(' ');
}

function pick(userTexts) {
	return script.find((c) => userTexts.some((t) => t.includes(c.match)));
}

function sse(res, events) {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	for (const [name, data] of events) {
		if (name) res.write(`event: ${name}\n`);
		res.write(`data: ${JSON.stringify(data)}\n\n`);
	}
	res.end();
}

let seq = 0;

function anthropic(req, res) {
	const msgs = req.messages || [];
	const users = msgs.filter((m) => m.role === 'user').map((m) => textOf(m.content));
	const conv = req.tools && req.tools.length ? pick(users) : undefined;
	const made = msgs.filter((m) => m.role === 'assistant' && Array.isArray(m.content) &&
		m.content.some((b) => b.type === 'tool_use')).length;
	const call = conv && made < conv.calls.length ? conv.calls[made] : undefined;
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
			delta: { type: 'text_delta', text: conv ? conv.answer || 'Done.' : 'ok' } }]);
	}
	events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
	events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: call ? 'tool_use' : 'end_turn',
		stop_sequence: null }, usage: { output_tokens: 20 } }]);
	events.push(['message_stop', { type: 'message_stop' }]);
	sse(res, events);
}

function gemini(req, res) {
	const contents = req.contents || [];
	const users = contents.filter((c) => c.role === 'user').map((c) => (c.parts || []).map((p) => p.text || '').join(' '));
	const conv = pick(users);
	const made = contents.filter((c) => c.role === 'model' && (c.parts || []).some((p) => p.functionCall)).length;
	const call = conv && made < conv.calls.length ? conv.calls[made] : undefined;
	const part = call ? { functionCall: { name: call.name, args: call.input } } : { text: conv ? conv.answer || 'Done.' : 'ok' };
	seq++;
	sse(res, [[null, { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
		usageMetadata: { promptTokenCount: 200 + seq, candidatesTokenCount: 10, totalTokenCount: 210 + seq },
		modelVersion: 'gemini-test', responseId: `r${seq}` }]]);
}

const server = http.createServer((req, res) => {
	let body = '';
	req.on('data', (d) => { body += d; });
	req.on('end', () => {
		let parsed = {};
		try { parsed = body ? JSON.parse(body) : {}; } catch (e) { /* a GET */ }
		if (log) fs.appendFileSync(log, `${req.method} ${req.url}\n`);
		if (req.method === 'POST' && req.url.startsWith('/v1/messages/count_tokens')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ input_tokens: 100 }));
		} else if (req.method === 'POST' && req.url.startsWith('/v1/messages')) {
			anthropic(parsed, res);
		} else if (req.method === 'POST' && req.url.includes(':streamGenerateContent')) {
			gemini(parsed, res);
		} else if (req.method === 'POST' && req.url.includes(':countTokens')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ totalTokens: 100 }));
		} else {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end('{}');
		}
	});
});
server.listen(0, '127.0.0.1', () => {
	fs.writeFileSync(process.argv[3], String(server.address().port));
});
