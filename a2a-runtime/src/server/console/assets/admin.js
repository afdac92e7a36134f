// What the server's operators see, where those features are on and the credential entered may
// see them: the authorization server's registered clients (and deleting one), usage totals from
// the usage records, and a summary of the Prometheus metrics; and what any caller sees of its
// own: its usage. Each panel shows only when the server has its endpoint and lets this
// credential read it; another failure is shown as the server words it.

import { $, credentialHeaders, el, serverGet } from './http.js';

/** The host's agent the console shows (its id labels metrics and usage), or null. */
let agentId = null;
/** The administrative endpoints the server has. */
let endpoints = [];

/** Shows a panel for each of `served` (the server's administrative endpoints) this credential may read. */
export async function showAdmin(served, hostAgent) {
  endpoints = served || [];
  agentId = hostAgent;
  const shown = await Promise.all([showClients(), showUsage(), showMetrics(), showMyUsage()]);
  $('admin').hidden = !shown.slice(0, 3).some(Boolean);
}

/**
 * Reads `path` for panel `id` when the server has it: the answer, or null (the panel hidden)
 * when it has not, or refuses this credential (401, 403: not an administrator's).
 */
async function read(id, path) {
  const answer = endpoints.includes(path.split('?')[0]) ? await serverGet(path) : null;
  const shown = answer !== null && answer.status !== 401 && answer.status !== 403;
  $(id).hidden = !shown;
  return shown ? answer : null;
}

/** Why the server refused, in its own words. */
function refusal(answer) {
  const body = answer.body || {};
  return el('p', { class: 'hint', text: body.error_description || body.message || `HTTP ${answer.status}` });
}

function table(caption, headings, rows) {
  // A table wider than a phone scrolls: focusable, so a keyboard can scroll it too.
  return el(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    el(
      'table',
      {},
      el('caption', { text: caption }),
      el('thead', {}, el('tr', {}, ...headings.map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...rows.map((cells) => el('tr', {}, ...cells.map(cell)))),
    ),
  );
}

/** A cell: an element as it is, `{ code }` as an identifier that may break anywhere, or text. */
function cell(value) {
  if (value instanceof Node) return el('td', {}, value);
  if (value?.code !== undefined) return el('td', { class: 'code', text: value.code });
  return el('td', { text: String(value) });
}

async function showClients() {
  const answer = await read('admin-clients', '/oauth/clients?page_size=1000');
  if (!answer) return false;
  const body = $('admin-clients-body');
  if (answer.status !== 200) {
    body.replaceChildren(refusal(answer));
    return true;
  }
  const clients = answer.body.clients || [];
  // The action first: on a phone the table scrolls sideways, and the button stays in reach.
  const rows = clients.map((client) => [
    deleteButton(client),
    client.client_name || '(unnamed)',
    { code: client.client_id },
    { code: (client.redirect_uris || []).join(' ') },
    client.registered ? new Date(client.registered * 1000).toLocaleString() : 'metadata document',
  ]);
  body.replaceChildren(
    clients.length
      ? table(
          `${clients.length} registered client${clients.length === 1 ? '' : 's'}`,
          ['Action', 'Name', 'Client id', 'Redirect URIs', 'Registered'],
          rows,
        )
      : el('p', { text: 'No client has registered.' }),
  );
  return true;
}

function deleteButton(client) {
  const name = client.client_name || client.client_id;
  const button = el('button', {
    type: 'button',
    class: 'secondary',
    text: 'Delete',
    'aria-label': `Delete client ${name}`,
  });
  button.addEventListener('click', async () => {
    if (!window.confirm(`Delete the client ${name}? Its refresh tokens stop working at once.`)) return;
    const response = await fetch(`/oauth/clients/${encodeURIComponent(client.client_id)}`, {
      method: 'DELETE',
      headers: credentialHeaders(),
    });
    $('admin-status').textContent =
      response.status === 204 ? `Deleted ${name}.` : `Not deleted: HTTP ${response.status}`;
    await showClients();
  });
  return button;
}

async function showUsage() {
  const by = $('usage-by').value;
  const agent = agentId ? `&agent=${encodeURIComponent(agentId)}` : '';
  const answer = await read('admin-usage', `/usage?by=${by}${agent}`);
  if (!answer) return false;
  $('admin-usage-body').replaceChildren(answer.status === 200 ? usageTable(answer, by) : refusal(answer));
  return true;
}

/** The credential's own calls (`/usage/me`), by skill: any signed-in caller may see them. */
async function showMyUsage() {
  const agent = agentId ? `&agent=${encodeURIComponent(agentId)}` : '';
  const answer = await read('mine', `/usage/me?by=skill${agent}`);
  if (!answer) return false;
  $('mine-body').replaceChildren(answer.status === 200 ? usageTable(answer, 'skill') : refusal(answer));
  return true;
}

/** The totals of a usage `answer`, grouped `by`, as a table (or a line saying there are none). */
function usageTable(answer, by) {
  const rows = (answer.body.usage || []).map((line) => [
    line[by],
    line.calls,
    line.ran,
    line.failed,
    line.refused,
    `${line.durationMs} ms`,
    line.inputBytes,
    line.outputBytes,
  ]);
  const since = new Date(answer.body.since).toLocaleDateString();
  return rows.length
    ? table(
        `Calls by ${by} since ${since}`,
        [by, 'Calls', 'Ran', 'Failed', 'Refused', 'Time', 'Bytes in', 'Bytes out'],
        rows,
      )
    : el('p', { text: `No calls recorded since ${since}.` });
}

/** Prometheus text as samples: name, labels, value. */
function samples(text) {
  const found = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    for (const [, name, value] of (match[2] || '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[name] = value;
    found.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return found;
}

async function showMetrics() {
  const answer = await read('admin-metrics', '/metrics');
  if (!answer) return false;
  const body = $('admin-metrics-body');
  if (answer.status !== 200) {
    body.replaceChildren(refusal(answer));
    return true;
  }
  const mine = samples(answer.body).filter(
    (s) => !agentId || !('agent' in s.labels) || s.labels.agent === agentId,
  );
  const total = (name) => mine.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);
  const facts = el('dl', {});
  for (const [label, name] of [
    ['Tasks working', 'a2a_tasks_working'],
    ['Questions waiting', 'a2a_questions_waiting'],
    ['Streams open', 'a2a_streams_open'],
    ['MCP sessions', 'mcp_server_sessions_active'],
    ['Refused as busy', 'a2a_quota_refusals_total'],
  ])
    facts.append(el('dt', { text: label }), el('dd', { text: String(total(name)) }));
  const skills = new Map();
  for (const s of mine) {
    if (!s.name.startsWith('a2a_skill_call_duration_seconds_')) continue;
    const line = skills.get(s.labels.skill) || { calls: 0, failed: 0, seconds: 0 };
    if (s.name.endsWith('_count')) {
      line.calls += s.value;
      if (s.labels.outcome !== 'completed' && s.labels.outcome !== 'input_required') line.failed += s.value;
    }
    if (s.name.endsWith('_sum')) line.seconds += s.value;
    skills.set(s.labels.skill, line);
  }
  const rows = [...skills]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([skill, line]) => [
      skill,
      line.calls,
      line.failed,
      line.calls ? `${((line.seconds / line.calls) * 1000).toFixed(1)} ms` : '—',
    ]);
  body.replaceChildren(
    facts,
    rows.length
      ? table(
          'Skill calls since the server started, over both protocols',
          ['Skill', 'Calls', 'Not completed', 'Mean time'],
          rows,
        )
      : el('p', { text: 'No skill has been called yet.' }),
  );
  return true;
}

/** Wires the panels' controls. */
export function initAdmin() {
  $('usage-by').addEventListener('change', showUsage);
  $('admin-refresh').addEventListener('click', () => showAdmin(endpoints, agentId));
  $('mine-refresh').addEventListener('click', showMyUsage);
}
