// maestro-flow-check.mjs <maestro-flow checkout> <zod package folder> <session folder>...:
// maestro-flow's own zod schemas (src/run/schemas.ts and protocol-schemas.ts,
// catlog22/maestro-flow v0.5.79) read each session folder as its SessionStore
// does: session.json with sessionStateReadSchema (a session/3.0 also with the
// strict sessionStateV30Schema its writer uses, after mapping the retired
// `paused` to `open`), every runs/<id>/run.json with runReadSchema, and the
// registries it names. maestro-flow is not on the npm registry and ships
// TypeScript, which this Node.js cannot run, so its type syntax is stripped
// first (types only: no code is changed). Prints one JSON line per folder:
// {"folder", "ok", "errors": [...]}; exits 1 when a folder does not read.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';

const [, , checkout, zodDir, ...folders] = process.argv;

// The index past the matching closer of the opener at s[i] ((, [, {, <), skipping strings.
function skipType(s, i, stops) {
  let depth = 0;
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') { i = skipString(s, i) - 1; continue; }
    if (depth === 0 && stops.includes(c)) return i;
    if (c === '=' && s[i + 1] === '>') { i++; continue; }
    if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c)) { if (depth === 0) return i; depth--; }
  }
  return i;
}

function skipString(s, i) {
  const q = s[i];
  for (i++; i < s.length && s[i] !== q; i++) if (s[i] === '\\') i++;
  return i + 1;
}

function skipTemplate(s, i) {
  for (i++; i < s.length && s[i] !== '`'; i++) if (s[i] === '\\') i++;
  return i + 1;
}

// A function's parameter list from s[i] = '(': the annotations out, then its return type.
function stripParams(s, i, out) {
  let depth = 0;
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') { const e = skipString(s, i); out.push(s.slice(i, e)); i = e - 1; continue; }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (depth === 1 && (c === ':' || (c === '?' && s[i + 1] === ':'))) {
      i = skipType(s, i + (c === '?' ? 2 : 1), [',', '=', ')']) - 1;
      continue;
    }
    out.push(c);
    if (depth === 0) break;
  }
  let j = i + 1;
  while (/\s/.test(s[j])) j++;
  if (s[j] === ':') return skipType(s, j + 1, ['{']);
  return i + 1;
}

function stripTypes(s) {
  const out = [];
  let i = 0, lineStart = true;
  while (i < s.length) {
    const c = s[i], rest = s.slice(i, i + 200);
    if (c === '/' && s[i + 1] === '/') { const e = s.indexOf('\n', i); out.push(s.slice(i, e)); i = e; continue; }
    if (c === '/' && s[i + 1] === '*') { const e = s.indexOf('*/', i) + 2; out.push(s.slice(i, e)); i = e; continue; }
    if (c === "'" || c === '"') { const e = skipString(s, i); out.push(s.slice(i, e)); i = e; continue; }
    if (c === '`') { const e = skipTemplate(s, i); out.push(s.slice(i, e)); i = e; continue; }
    if (lineStart && /^(export )?(type|interface) [A-Za-z]/.test(rest)) {
      i = skipType(s, i, [';']) + 1;	// a type alias, to its ';'
      continue;
    }
    if (/^function [A-Za-z0-9_]*\s*\(/.test(rest) && !/[A-Za-z0-9_$.]/.test(s[i - 1] || '')) {
      const p = s.indexOf('(', i);
      out.push(s.slice(i, p));
      i = stripParams(s, p, out);
      out.push(' ');
      continue;
    }
    if (/^\sas\s/.test(rest) && /[A-Za-z0-9_)\]}'"]/.test(s[i - 1] || '')) {
      i = skipType(s, i + 4, [')', ',', ';', '}', ']', '\n']);	// a cast: the expression stays
      continue;
    }
    out.push(c);
    lineStart = c === '\n' ? true : (lineStart && /\s/.test(c));
    i++;
  }
  return out.join('');
}

const dir = mkdtempSync(join(tmpdir(), 'maestro-flow-'));
const zod = pathToFileURL(join(zodDir, 'index.js')).href;
for (const name of ['protocol-schemas', 'schemas']) {
  const ts = readFileSync(join(checkout, 'src/run', `${name}.ts`), 'utf8');
  const js = stripTypes(ts).replace(/from 'zod'/g, `from '${zod}'`).replace(/from '\.\/protocol-schemas\.js'/g, "from './protocol-schemas.mjs'");
  writeFileSync(join(dir, `${name}.mjs`), js);
}
const S = await import(pathToFileURL(join(dir, 'schemas.mjs')).href);
rmSync(dir, { recursive: true, force: true });

function issues(schema, value) {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map(e => `${e.path.join('.')}: ${e.message}`);
}

let bad = 0;
for (const folder of folders) {
  const errors = [];
  const read = (file) => JSON.parse(readFileSync(join(folder, file), 'utf8'));
  const session = read('session.json');
  const add = (what, list) => list.forEach(e => errors.push(`${what}: ${e}`));
  add('session.json', issues(S.sessionStateReadSchema, session));
  if (session.schema_version === 'session/3.0') {
    const parsed = S.sessionStateV30ReadSchema.safeParse(session);
    if (parsed.success) {
      const v = parsed.data.status === 'paused' ? { ...parsed.data, status: 'open' } : parsed.data;
      add('session.json (as written)', issues(S.sessionStateV30Schema, v));
    }
  }
  const refs = session.schema_version === 'session/3.0'
    ? { artifacts: session.artifacts_ref, evidence: session.evidence_ref }
    : (session.refs || {});
  const registry = { artifacts: S.artifactRegistrySchema, evidence: S.evidenceStoreSchema, gates: S.gateRegistrySchema };
  for (const [part, file] of Object.entries(refs))
    if (registry[part] && existsSync(join(folder, file))) add(file, issues(registry[part], read(file)));
  const runs = join(folder, 'runs');
  for (const id of existsSync(runs) ? readdirSync(runs).sort() : []) {
    const file = join('runs', id, 'run.json');
    if (!existsSync(join(folder, file))) continue;
    const run = read(file);
    add(file, issues(S.runReadSchema, run));
    if (run.run_id !== undefined && run.run_id !== id) errors.push(`${file}: run_id ${run.run_id} is not its folder's`);
  }
  if (session.session_id !== folder.replace(/\/+$/, '').split('/').pop()) errors.push('session.json: session_id is not its folder\'s');
  if (errors.length) bad++;
  console.log(JSON.stringify({ folder, ok: errors.length === 0, errors }));
}
process.exit(bad ? 1 : 0);
