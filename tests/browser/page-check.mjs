// page-check.mjs - opens pages of `git session html` in headless Chromium
// (Debian's, through puppeteer-core, which downloads no browser) and checks
// them against what the test expects of them.
//
//   node page-check.mjs <expect.json>
//
// expect.json: {"pages": [{"file", "session_id", "goal", "status",
// "checkpoint", "phases": [{id, name}], "agents": [id], "conversations":
// [{agent, prompts: [text], replies, said: [text], tools, tool_names: [name],
// shell_exits: [n or null]}],
// "files": [path], "commits": [{id, subject, body}], "decisions": [text],
// "errors": [text], "tasks": [{title, status}], "marks": [kind], "times":
// [{kind, id, t}], "span", "token_points", "empty": [section], "hostile" and
// "secret": text or null, "must_fail": [part of a check's name] for a page
// spoiled on purpose}],
// "index": {"file", "links": [file name]} or null, "screenshot": path or null}
//
// Prints one "ok N - what" or "not ok N - what: why" line a check, then
// "N passed, N failed"; exits 1 when a check failed, 2 when it could not run.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join, resolve, basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const SECTIONS = ['summary', 'timeline', 'conversation', 'files', 'commits', 'decisions', 'errors', 'tasks', 'tokens'];
const FIELDS = ['goal', 'status', 'who', 'created', 'updated', 'branch', 'tokens', 'budget', 'checkpoint'];

let passed = 0, failed = 0;
let spoiled = null;	// while a page made bad on purpose is checked: the checks it fails
function check(what, ok, why = '') {
	if (spoiled) {
		if (!ok)
			spoiled.push(what);
	} else if (ok) {
		passed++;
		console.log(`ok ${passed + failed} - ${what}`);
	} else {
		failed++;
		console.log(`not ok ${passed + failed} - ${what}${why ? ': ' + String(why).slice(0, 600) : ''}`);
	}
	return ok;
}

// The anchor of a text: every byte outside [A-Za-z0-9._-] as -XX, and a '-' two of [0-9A-F] follow.
export function anchor(prefix, s) {
	const bytes = Buffer.from(s, 'utf8'), hex = (b) => b !== undefined && /[0-9A-F]/.test(String.fromCharCode(b));
	let out = prefix;
	bytes.forEach((b, i) => {
		const c = String.fromCharCode(b);
		out += /[A-Za-z0-9._-]/.test(c) && !(c === '-' && hex(bytes[i + 1]) && hex(bytes[i + 2])) ? c
			: '-' + b.toString(16).toUpperCase().padStart(2, '0');
	});
	return out;
}

const norm = (s) => (s ?? '').replace(/\s+/g, ' ').trim();

// A PNG's pixels as RGBA: 8-bit RGB or RGBA, not interlaced (what Chromium writes).
export function decodePng(buf) {
	if (buf.readUInt32BE(0) !== 0x89504e47)
		throw new Error('not a PNG');
	let pos = 8, width, height, type, idat = [];
	while (pos < buf.length) {
		const len = buf.readUInt32BE(pos), kind = buf.toString('latin1', pos + 4, pos + 8);
		const data = buf.subarray(pos + 8, pos + 8 + len);
		if (kind === 'IHDR') {
			width = data.readUInt32BE(0); height = data.readUInt32BE(4);
			type = data[9];
			if (data[8] !== 8 || (type !== 2 && type !== 6) || data[12] !== 0)
				throw new Error(`PNG depth ${data[8]} type ${type} interlace ${data[12]}`);
		} else if (kind === 'IDAT') {
			idat.push(data);
		}
		pos += 12 + len;
	}
	const bpp = type === 6 ? 4 : 3, stride = width * bpp;
	const raw = inflateSync(Buffer.concat(idat));
	const px = Buffer.alloc(width * height * 4);
	let prev = Buffer.alloc(stride), cur = Buffer.alloc(stride);
	for (let y = 0; y < height; y++) {
		const f = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let i = 0; i < stride; i++) {
			const a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
			let p = 0;
			if (f === 1) p = a;
			else if (f === 2) p = b;
			else if (f === 3) p = (a + b) >> 1;
			else if (f === 4) {
				const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
				p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			}
			cur[i] = (line[i] + p) & 0xff;
		}
		for (let x = 0; x < width; x++) {
			px[(y * width + x) * 4] = cur[x * bpp];
			px[(y * width + x) * 4 + 1] = cur[x * bpp + 1];
			px[(y * width + x) * 4 + 2] = cur[x * bpp + 2];
			px[(y * width + x) * 4 + 3] = bpp === 4 ? cur[x * bpp + 3] : 255;
		}
		[prev, cur] = [cur, prev];
	}
	return { width, height, px };
}

// How many colours, and the share of the commonest (the background).
function colours(png) {
	const count = new Map();
	for (let i = 0; i < png.px.length; i += 4) {
		const k = png.px.readUInt32BE(i);
		count.set(k, (count.get(k) || 0) + 1);
	}
	return { distinct: count.size, top: Math.max(...count.values()) / (png.width * png.height) };
}

// Everything the checks read of a page, read in the page.
function facts() {
	const q = (s, root = document) => [...root.querySelectorAll(s)];
	const text = (e) => (e ? e.textContent : null);
	const meta = (n) => document.querySelector(`meta[name="${n}"]`)?.getAttribute('content') ?? null;
	const byId = (id) => document.getElementById(id);
	const sections = {};
	for (const e of q('section[id], header[id]'))
		sections[e.id] = { tag: e.tagName.toLowerCase(), h2: !!e.querySelector('h2'), empty: !!e.querySelector('p.empty'), text: e.textContent };
	const svg = document.querySelector('#timeline svg[role="img"]');
	const chart = document.querySelector('#tokens svg.chart');
	return {
		doctype: document.doctype ? document.doctype.name : null,
		lang: document.documentElement.getAttribute('lang'),
		charset: document.characterSet,
		viewport: meta('viewport'),
		colorScheme: meta('color-scheme'),
		csp: document.querySelector('meta[http-equiv="Content-Security-Policy" i]')?.getAttribute('content') ?? null,
		scripts: document.getElementsByTagName('script').length,
		handlers: q('*').filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length,
		toc: q('nav#toc a[href]').map((a) => a.getAttribute('href')),
		sections,
		h1: text(document.querySelector('header#summary h1')),
		fields: Object.fromEntries(q('header#summary dl dd[data-field]').map((d) => [d.dataset.field, d.textContent])),
		svg: svg ? { label: svg.getAttribute('aria-label'), width: svg.viewBox.baseVal?.width || svg.width.baseVal.value } : null,
		// where along the drawing each bar starts, and each commit is marked
		xs: [...q('#timeline g.phase, #timeline g.agent').filter((g) => g.querySelector('rect')).map((g) => ({
			kind: g.classList.contains('phase') ? 'phase' : 'agent', id: g.dataset.id, x: g.querySelector('rect').x.baseVal.value,
		})), ...q('#timeline a g.mark[data-kind="commit"]').map((g) => {
			const b = g.getBBox();
			return { kind: 'commit', id: (g.closest('a').getAttribute('href') || '').replace('#commit-', ''), x: b.x + b.width / 2 };
		})],
		phases: q('#timeline g.phase').map((g) => ({ id: g.dataset.id, title: text(g.querySelector('title')) })),
		agents: q('#timeline g.agent').map((g) => ({ id: g.dataset.id, title: text(g.querySelector('title')) })),
		marks: q('#timeline g.mark').map((g) => ({
			kind: g.dataset.kind, title: text(g.querySelector('title')),
			href: g.closest('a')?.getAttribute('href') ?? g.closest('a')?.getAttribute('xlink:href') ?? null,
		})),
		articles: q('#conversation article.agent').map((a) => ({
			id: a.id, h3: text(a.querySelector('h3')), text: a.textContent,
			summaries: q('details.tool > summary', a).map((x) => x.textContent),
			prompts: q('div.turn.prompt', a).map((d) => d.textContent),
			replies: q('div.turn.reply', a).length,
			tools: q('details.tool', a).map((d) => ({ summary: text(d.querySelector('summary')), pre: !!d.querySelector('pre') })),
			exits: q('details.tool.shell', a).map((d) => d.dataset.exit ?? null),
		})),
		files: q('#files article.file').map((a) => ({
			id: a.id, h3: text(a.querySelector('h3')),
			diffs: q('pre.diff', a).length, adds: q('pre.diff span.add', a).length, dels: q('pre.diff span.del', a).length,
			added: q('pre.diff span.add', a).map((x) => x.textContent),
		})),
		commits: q('#commits li.commit').map((l) => ({ id: l.id, text: l.textContent })),
		decisions: q('#decisions li.decision').map((l) => l.textContent),
		errors: q('#errors li.error').map((l) => ({ text: l.textContent, status: l.dataset.status ?? null })),
		tasks: q('#tasks li.task').map((l) => ({ text: l.textContent, status: l.dataset.status ?? null })),
		chart: chart ? { role: chart.getAttribute('role'), points: q('title', chart).length,
			circles: q('circle', chart).filter((c) => c.querySelector('title')).length } : null,
		tableRows: q('#tokens table tr').filter((r) => r.querySelector('td')).length,
		ids: q('[id]').map((x) => x.id),
		brokenLinks: q('a[href^="#"]').map((a) => a.getAttribute('href')).filter((h) => h.length > 1 && !byId(h.slice(1))),
		external: q('[src], [href], [action], [srcset], [poster], [data]').flatMap((e) =>
			['src', 'href', 'action', 'srcset', 'poster', 'data', 'xlink:href'].map((n) => e.getAttribute(n)).filter((v) => v != null))
			// a scheme (but data:), or a path from a root or a host; a sibling page of --all may be linked
			.filter((v) => (/^\s*[a-z][a-z0-9+.-]*:/i.test(v) && !/^\s*data:/i.test(v)) || /^\s*[\/\\]/.test(v)),
		pwned: window.__pwned,
		bodyText: document.body.innerText,
	};
}

async function open(browser, file, requests, opts = {}) {
	const page = await browser.newPage();
	const url = pathToFileURL(resolve(file)).href;
	const events = { dialogs: [], errors: [] };
	page.allowed = new Set([url]);
	await page.setJavaScriptEnabled(opts.js !== false);
	await page.setRequestInterception(true);
	page.on('request', (r) => {
		const u = r.url();
		if (page.allowed.has(u) || u.startsWith('data:') || u.startsWith('about:')) {
			r.continue();
		} else {
			requests.push(u);
			r.abort('blockedbyclient');
		}
	});
	page.on('dialog', (d) => { events.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
	page.on('console', (m) => { if (m.type() === 'error') events.errors.push(m.text()); });
	page.on('pageerror', (e) => events.errors.push(String(e)));
	if (opts.width)
		await page.setViewport({ width: opts.width, height: opts.height || 800 });
	await page.goto(url, { waitUntil: 'load' });
	return { page, events };
}

// The bars' starts and the commits lie along one time axis: x = a + b t,
// each within 2% of the drawing's width, and spread over it as the times are
// over the session.
function checkAlong(name, f, e) {
	const pts = e.times.map((t) => ({ ...t, x: f.xs.find((x) => x.kind === t.kind && x.id === String(t.id))?.x }));
	const lost = pts.filter((p) => p.x === undefined);
	if (!check(`${name}: every bar and commit drawn at a place along time`, lost.length === 0, JSON.stringify({ lost, drawn: f.xs })))
		return;
	const n = pts.length, mt = pts.reduce((s, p) => s + p.t, 0) / n, mx = pts.reduce((s, p) => s + p.x, 0) / n;
	const b = pts.reduce((s, p) => s + (p.t - mt) * (p.x - mx), 0) / (pts.reduce((s, p) => s + (p.t - mt) ** 2, 0) || 1);
	const off = Math.max(...pts.map((p) => Math.abs(mx + b * (p.t - mt) - p.x)));
	const tSpread = Math.max(...pts.map((p) => p.t)) - Math.min(...pts.map((p) => p.t));
	const xSpread = Math.max(...pts.map((p) => p.x)) - Math.min(...pts.map((p) => p.x));
	check(`${name}: bars and commits in time order, on one scale that uses the drawing's width`,
		b > 0 && off <= 0.02 * f.svg.width && xSpread >= 0.4 * f.svg.width * Math.min(1, tSpread / e.span),
		JSON.stringify({ slope: b, worst: off, xSpread, width: f.svg.width, tSpread, span: e.span, pts }));
}

function checkContent(name, f, e) {
	const has = (list, id) => list.some((x) => x.id === String(id));
	check(`${name}: <!doctype html>, lang, UTF-8, viewport, color-scheme`,
		f.doctype === 'html' && f.lang === 'en' && f.charset === 'UTF-8' && /width=device-width/.test(f.viewport ?? '')
		&& /light/.test(f.colorScheme ?? '') && /dark/.test(f.colorScheme ?? ''), JSON.stringify([f.doctype, f.lang, f.charset, f.viewport, f.colorScheme]));
	check(`${name}: a Content-Security-Policy that lets nothing in`,
		f.csp && /default-src 'none'/.test(f.csp) && !/script-src/.test(f.csp) && /base-uri 'none'/.test(f.csp) && /form-action 'none'/.test(f.csp), f.csp);
	check(`${name}: no script, no event handler attribute, no URL to elsewhere`,
		f.scripts === 0 && f.handlers === 0 && f.external.length === 0, JSON.stringify([f.scripts, f.handlers, f.external]));
	const missing = SECTIONS.filter((s) => !f.sections[s] || (s !== 'summary' && (f.sections[s].tag !== 'section' || !f.sections[s].h2)));
	check(`${name}: every section, each with its heading`, missing.length === 0, missing.join(' '));
	const unlinked = SECTIONS.filter((s) => !f.toc.includes('#' + s));
	check(`${name}: the table of contents links every section`, unlinked.length === 0, unlinked.join(' '));
	check(`${name}: every link within the page has its target`, f.brokenLinks.length === 0, f.brokenLinks.join(' '));

	const lacking = FIELDS.filter((x) => !(x in f.fields));
	check(`${name}: the header: the id, and every field`, norm(f.h1) === e.session_id && lacking.length === 0, `${f.h1} lacks ${lacking}`);
	check(`${name}: the header: goal, status, checkpoint`,
		norm(f.fields.goal) === norm(e.goal ?? '') &&
		norm(f.fields.status).toLowerCase().replace(/ /g, '_').includes(e.status) &&
		norm(f.fields.checkpoint) === e.checkpoint, JSON.stringify([f.fields.goal, f.fields.status, f.fields.checkpoint]));
	check(`${name}: the header: tokens and the budget`,
		/\d/.test(f.fields.tokens ?? '') && (e.budget ? /\d/.test(f.fields.budget ?? '') : true), JSON.stringify([f.fields.tokens, f.fields.budget]));

	check(`${name}: the timeline is a drawing with a label`, !!f.svg && !!f.svg.label, JSON.stringify(f.svg));
	const noPhase = e.phases.filter((p) => !has(f.phases, p.id) || !f.phases.find((x) => x.id === String(p.id)).title?.includes(p.name));
	check(`${name}: the timeline draws every phase, titled`, noPhase.length === 0, JSON.stringify({ missing: noPhase, drawn: f.phases }));
	const noAgent = e.agents.filter((a) => !has(f.agents, a) || !f.agents.find((x) => x.id === a).title);
	check(`${name}: the timeline draws every agent, titled`, noAgent.length === 0, JSON.stringify({ missing: noAgent, drawn: f.agents.map((a) => a.id) }));
	const kinds = new Set(f.marks.map((m) => m.kind));
	const noMark = e.marks.filter((k) => !kinds.has(k));
	check(`${name}: the timeline marks ${e.marks.join(', ') || 'nothing'}, each titled`,
		noMark.length === 0 && f.marks.every((m) => m.title && ['failure', 'retry', 'commit', 'prompt', 'compact'].includes(m.kind)),
		JSON.stringify({ missing: noMark, marks: f.marks }));
	if (e.times?.length > 1)
		checkAlong(name, f, e);
	const commitMarks = f.marks.filter((m) => m.kind === 'commit');
	check(`${name}: commit marks link their commits`, commitMarks.every((m) => m.href && m.href.startsWith('#commit-')),
		JSON.stringify(commitMarks));

	const noAnchor = [...e.phases.map((p) => anchor('phase-', String(p.id))), ...e.agents.map((a) => anchor('agent-', a))]
		.filter((id) => !f.ids.includes(id));
	check(`${name}: an anchor for every phase and agent`, noAnchor.length === 0 &&
		e.agents.every((a) => f.articles.some((x) => x.id === anchor('agent-', a))), JSON.stringify({ missing: noAnchor, articles: f.articles.map((x) => x.id) }));
	for (const c of e.conversations) {
		const a = f.articles.find((x) => x.id === anchor('agent-', c.agent));
		if (!check(`${name}: ${c.agent}'s conversation`, !!a, JSON.stringify(f.articles.map((x) => x.id))))
			continue;
		check(`${name}: ${c.agent}'s prompts, in order`, a.prompts.length === c.prompts.length && c.prompts.every((p, i) => norm(a.prompts[i]).includes(norm(p))),
			JSON.stringify({ page: a.prompts, expected: c.prompts }));
		check(`${name}: ${c.agent}'s replies and tool calls, folded`,
			a.replies >= c.replies && a.tools.length >= c.tools && a.tools.every((t) => t.summary && t.pre),
			JSON.stringify({ replies: a.replies, tools: a.tools, expected: [c.replies, c.tools] }));
		const unsaid = c.said.filter((r) => !norm(a.text).includes(norm(r)));
		check(`${name}: ${c.agent}'s replies, word for word`, unsaid.length === 0, JSON.stringify(unsaid));
		check(`${name}: ${c.agent}'s tool calls named, in order`,
			c.tool_names.every((t, i) => (a.summaries[i] ?? '').includes(t)), JSON.stringify({ page: a.summaries, expected: c.tool_names }));
		check(`${name}: ${c.agent}'s shell commands and their exit status`,
			a.exits.length === c.shell_exits.length && c.shell_exits.every((x, i) => x === null || a.exits[i] === String(x)),
			JSON.stringify({ page: a.exits, expected: c.shell_exits }));
	}
	const noFile = e.files.filter((p) => !f.files.find((x) => x.id === anchor('file-', p) && norm(x.h3).includes(p) && x.diffs > 0 && x.adds + x.dels > 0));
	check(`${name}: every file, with the diff of its changes`, noFile.length === 0, JSON.stringify({ missing: noFile, page: f.files }));
	const notAdded = Object.entries(e.file_lines || {}).filter(([p, l]) =>
		!f.files.find((x) => x.id === anchor('file-', p))?.added.some((a) => a.replace(/^\+/, '').trim() === l.trim()));
	check(`${name}: each file's diff adds what the file holds`, notAdded.length === 0, JSON.stringify(notAdded));
	const noCommit = e.commits.filter((c) => !f.commits.find((x) => x.id === 'commit-' + c.id && norm(x.text).includes(norm(c.subject)) && norm(x.text).includes(norm(c.body))));
	check(`${name}: every commit, with its message`, noCommit.length === 0 && f.commits.length === e.commits.length, JSON.stringify({ missing: noCommit, page: f.commits }));
	const listed = (what, page, want) => {
		const gone = want.filter((w) => !page.some((p) => norm(p).includes(norm(w))));
		check(`${name}: every ${what}`, gone.length === 0 && page.length === want.length, JSON.stringify({ missing: gone, page }));
	};
	listed('decision', f.decisions, e.decisions);
	listed('error', f.errors.map((x) => x.text), e.errors);
	listed('task', f.tasks.map((x) => x.text), e.tasks.map((t) => t.title));
	check(`${name}: tasks carry their status`, e.tasks.every((t) => f.tasks.some((x) => norm(x.text).includes(t.title) && x.status === t.status)),
		JSON.stringify(f.tasks));
	if (e.token_points)
		check(`${name}: tokens as a chart and as a table, a point and a row for each checkpoint that used some`,
			f.chart && f.chart.role === 'img' && f.tableRows === e.token_points &&
			(f.chart.circles === e.token_points || (f.chart.circles === 0 && f.chart.points >= e.token_points)),
			JSON.stringify({ chart: f.chart, rows: f.tableRows, expected: e.token_points }));
	const unsaid = (e.empty || []).filter((x) => !f.sections[x]?.empty);
	check(`${name}: the empty sections say so: ${(e.empty || []).join(' ') || 'none empty'}`, unsaid.length === 0, unsaid.join(' '));
}

async function checkPage(browser, e, shot) {
	const name = basename(e.file);
	const requests = [];
	const { page, events } = await open(browser, e.file, requests, { width: 1000 });
	const f = await page.evaluate(facts);
	checkContent(name, f, e);
	const raw = readFileSync(e.file);
	check(`${name}: under 1 MB`, raw.length < 1 << 20, raw.length);
	if (e.secret)
		check(`${name}: the secret redacted, as stored`, !raw.includes(e.secret) &&
			(f.bodyText.includes('[REDACTED:') || !e.conversations.some((c) => c.prompts.some((p) => p.includes('[REDACTED:')))));
	if (e.hostile) {
		check(`${name}: the hostile prompt is shown as text and did not run`,
			f.pwned === undefined && events.dialogs.length === 0 && norm(f.bodyText).includes(norm(e.hostile)),
			JSON.stringify({ pwned: f.pwned, dialogs: events.dialogs }));
	}

	// with every <details> open too, nothing wider than a phone
	await page.setViewport({ width: 375, height: 800 });
	const narrow = await page.evaluate(() => {
		const w = () => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth });
		const closed = w();
		document.querySelectorAll('details').forEach((d) => { d.open = true; });
		return { closed, open: w() };
	});
	check(`${name}: no horizontal scroll at 375 px, details closed or open`,
		narrow.closed.scroll <= narrow.closed.inner && narrow.open.scroll <= narrow.open.inner, JSON.stringify(narrow));
	await page.setViewport({ width: 1000, height: 800 });
	await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = false; }));

	const background = () => page.evaluate(() => {
		const bg = (e) => getComputedStyle(e).backgroundColor;
		const b = bg(document.body);
		return b === 'rgba(0, 0, 0, 0)' ? bg(document.documentElement) : b;
	});
	const light = await background();
	await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
	const dark = await background();
	await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
	check(`${name}: dark when the viewer prefers it`, light !== dark, `${light} / ${dark}`);

	if (shot) {
		const png = await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: 1000, height: 900 } });
		writeFileSync(shot, png);
		const c = colours(decodePng(png));
		check(`${name}: a screenshot that is not blank`, c.distinct > 16 && c.top < 0.98, JSON.stringify(c));
	}

	// folded on the screen, unfolded and not cut on paper
	const folds = () => page.evaluate(() => {
		const h = (e) => (e ? e.getBoundingClientRect().height : 0);
		const closed = [...document.querySelectorAll('details:not([open])')].filter((d) => d.querySelector(':scope > :not(summary)'));
		return {
			details: closed.length,
			shown: closed.filter((d) => h(d) > h(d.querySelector(':scope > summary')) + 2).length,
			cut: [...document.querySelectorAll('pre')].filter((p) => p.scrollWidth > p.clientWidth + 1).length,
		};
	});
	const screen = await folds();
	await page.emulateMediaType('print');
	const paper = await folds();
	check(`${name}: details folded on the screen, shown whole in print`,
		screen.shown === 0 && paper.shown === paper.details && paper.cut === 0, JSON.stringify({ screen, paper }));
	const nav = await page.evaluate(() => getComputedStyle(document.querySelector('nav#toc')).display);
	const pdf = Buffer.from(await page.pdf({ format: 'A4' }));
	check(`${name}: printable: the table of contents hidden, a PDF made`,
		nav === 'none' && pdf.subarray(0, 5).toString() === '%PDF-' && pdf.length > 2000, `${nav} ${pdf.length}`);
	await page.emulateMediaType('screen');
	const withJs = f.bodyText;
	await page.close();

	const off = await open(browser, e.file, requests, { js: false, width: 1000 });
	const fOff = await off.page.evaluate(facts);
	check(`${name}: the same with JavaScript disabled`, fOff.bodyText === withJs && fOff.articles.length === f.articles.length,
		`${fOff.bodyText.length} / ${withJs.length}`);
	await off.page.close();

	check(`${name}: no request left the page`, requests.length === 0, requests.join(' '));
	check(`${name}: no dialog, no console error`, events.dialogs.length + events.errors.length + off.events.errors.length === 0,
		JSON.stringify([events.dialogs, events.errors, off.events.errors]));
}

async function checkIndex(browser, e) {
	const requests = [];
	const { page, events } = await open(browser, e.file, requests, { width: 1000 });
	const f = await page.evaluate(() => ({
		links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
		csp: document.querySelector('meta[http-equiv="Content-Security-Policy" i]')?.getAttribute('content') ?? null,
		scripts: document.getElementsByTagName('script').length,
		text: document.body.innerText,
	}));
	const local = f.links.filter((h) => !h.startsWith('#'));
	const missing = e.links.filter((l) => !local.includes(l) && !local.includes(encodeURI(l)));
	check('index: links every session page', missing.length === 0 && local.length === e.links.length, JSON.stringify({ missing, local }));
	check('index: a Content-Security-Policy, no script', /default-src 'none'/.test(f.csp ?? '') && f.scripts === 0, f.csp);
	check('index: names every session', e.sessions.every((s) => f.text.includes(s)), e.sessions.join(' '));
	// a link followed lands on a page of the same folder, and nothing else is fetched
	if (local.length) {
		const target = new URL(local[0], page.url()).href;
		page.allowed.add(target);
		await page.goto(target, { waitUntil: 'load' });
		const h1 = await page.evaluate(() => document.querySelector('h1')?.textContent);
		check('index: a link opens its session page', e.sessions.includes(norm(h1)), h1);
	}
	check('index: no request left the page, no dialog, no error', requests.length === 0 && events.dialogs.length === 0 &&
		events.errors.length === 0, JSON.stringify([requests, events.dialogs, events.errors]));
	await page.close();
}

async function main() {
	const e = JSON.parse(readFileSync(process.argv[2], 'utf8'));
	const profile = mkdtempSync(join(process.env.BROWSER_PROFILE_DIR || tmpdir(), 'chromium-'));
	const args = ['--user-data-dir=' + profile, '--no-first-run', '--no-default-browser-check',
		'--disable-gpu', '--disable-extensions', '--disable-background-networking', '--disable-sync',
		'--disable-component-update', '--metrics-recording-only', '--no-pings', '--disable-dev-shm-usage'];
	if (process.getuid && process.getuid() === 0)
		args.push('--no-sandbox');
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args, timeout: 60000,
	});
	try {
		let first = true;
		for (const p of e.pages) {
			if (p.must_fail) {
				// the checks can fail: a page spoiled on purpose fails those it must
				spoiled = [];
				await checkPage(browser, p, null);
				const failures = spoiled;
				spoiled = null;
				const missed = p.must_fail.filter((m) => !failures.some((f) => f.includes(m)));
				check(`${basename(p.file)}, spoiled on purpose, fails: ${p.must_fail.join('; ')}`, missed.length === 0,
					JSON.stringify({ missed, failures }));
				continue;
			}
			await checkPage(browser, p, first ? e.screenshot : null);
			first = false;
		}
		if (e.index)
			await checkIndex(browser, e.index);
	} finally {
		await browser.close();
		rmSync(profile, { recursive: true, force: true });
	}
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(failed ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
	main().catch((err) => { console.log(`not ok - the browser could not run: ${err.stack || err}`); process.exit(2); });
