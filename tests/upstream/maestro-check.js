'use strict';
// maestro-check.js <maestro checkout> <project root>...: Maestro's own handlers
// (josstei/maestro-orchestrate 1.6.4) on <root>/docs/maestro/state/active-session.md:
// read its status, record an update, complete the current phase and start
// the next. With one root, prints the status before and after as JSON and
// throws (exit 1) on any file Maestro cannot read; with several, prints a
// JSON array with, per root, {root, before, after} or {root, error}.
const path = require('path');
const tools = require(path.resolve(process.argv[2], 'src/mcp/handlers/session-state-tools'));

function check(root) {
  const before = tools.handleGetSessionStatus({}, root);
  if (!before.exists) throw new Error('no active session');
  tools.handleUpdateSession({ session_id: before.session_id, current_batch: 'batch-1' }, root);
  const cur = before.current_phase;
  const next = before.phases.find((p) => p.status === 'pending');
  tools.handleTransitionPhase({
    session_id: before.session_id,
    completed_phase_id: cur,
    files_modified: ['src/gateway.c'],
    downstream_context: { integration_points: ['gateway calls bucket_take'] },
    next_phase_ids: next ? [next.id] : undefined,
  }, root);
  const after = tools.handleGetSessionStatus({}, root);
  return { before, after };
}

const roots = process.argv.slice(3);
if (roots.length === 1) {
  console.log(JSON.stringify(check(roots[0]), null, 2));
} else {
  console.log(JSON.stringify(roots.map((root) => {
    try {
      return { root, ...check(root) };
    } catch (e) {
      return { root, error: e.message };
    }
  }), null, 2));
}
