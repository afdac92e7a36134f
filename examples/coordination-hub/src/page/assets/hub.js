// The hub's page: a project's agents as `project_overview` answers, asked of this hub's own MCP
// endpoint (stateless MCP 2026-07-28) with the credential entered here, again every few seconds
// while the page is visible. Nothing is kept but the credential, in this tab's session storage.

const MCP_VERSION = '2026-07-28';
/** How often the overview is asked for again. */
const REFRESH_MS = 3000;
/** The longest one call may take, and the most bytes of its answer the page reads. */
const TIMEOUT_MS = 10000;
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const CREDENTIAL = 'coordination-hub-credential';

const $ = (id) => document.getElementById(id);

/** An element with attributes and children. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

function credentialHeaders() {
  const stored = JSON.parse(sessionStorage.getItem(CREDENTIAL) || '{}');
  if (!stored.value) return {};
  return stored.kind === 'api-key'
    ? { 'X-API-Key': stored.value }
    : { Authorization: `Bearer ${stored.value}` };
}

/** The body of `response`, refused when larger than the page reads. */
async function bodyText(response) {
  if (Number(response.headers.get('Content-Length') || 0) > MAX_RESPONSE_BYTES)
    throw new Error('the answer is larger than this page reads');
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) throw new Error('the answer is larger than this page reads');
  return text;
}

/** The JSON-RPC answers in a body: one JSON document, or SSE `data:` lines. */
function answers(text, contentType) {
  if (!contentType.includes('text/event-stream')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data)
    .map((data) => JSON.parse(data));
}

let rpcId = 0;

/** `project_overview` of `project` (the hub's default when empty): the overview, or an error. */
async function overview(project) {
  const id = ++rpcId;
  const params = {
    name: 'project_overview',
    arguments: project ? { project_id: project } : {},
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MCP_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  };
  // `mcp` beside this page's own path: the hub's endpoint, wherever the hub is mounted.
  const response = await fetch('mcp', {
    method: 'POST',
    signal: AbortSignal.timeout(TIMEOUT_MS),
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MCP_VERSION,
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'project_overview',
      ...credentialHeaders(),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
  });
  if (response.status === 401) throw new Error('The hub asks who you are: enter a credential it accepts.');
  if (response.status === 403) throw new Error('This credential may not see the overview.');
  const text = await bodyText(response);
  const answer = answers(text, response.headers.get('Content-Type') || '').find((a) => a.id === id);
  if (!answer) throw new Error(`The hub answered HTTP ${response.status}.`);
  if (answer.error) throw new Error(answer.error.message);
  if (answer.result.isError) throw new Error(toolError(answer.result));
  return answer.result.structuredContent;
}

/** What a tool error says: its message, from the JSON its text carries. */
function toolError(result) {
  const text = (result.content || []).map((c) => c.text || '').join('\n');
  try {
    return JSON.parse(text).message || text;
  } catch {
    return text;
  }
}

const time = (at) => new Date(at).toLocaleTimeString();

/** `at` as people read it from now: "in 1m 5s". */
function fromNow(at) {
  const seconds = Math.max(0, Math.round((new Date(at) - Date.now()) / 1000));
  return seconds >= 60 ? `in ${Math.floor(seconds / 60)}m ${seconds % 60}s` : `in ${seconds}s`;
}

function reservationTable(agent) {
  if (!agent.reservations.length) return el('p', { class: 'meta', text: 'Holds no files.' });
  const head = el(
    'tr',
    {},
    ...['Path', 'Mode', 'Change', 'Why', 'Until'].map((h) => el('th', { scope: 'col', text: h })),
  );
  const rows = agent.reservations.map((r) =>
    el(
      'tr',
      {},
      el('td', { class: 'path', text: r.file_path }),
      el('td', { text: r.mode }),
      el('td', { text: r.change_type }),
      el('td', { text: r.description }),
      el('td', { text: time(r.expires_at) }),
    ),
  );
  const caption = `Reservations of ${agent.session_name}`;
  const table = el('table', {}, el('caption', { text: caption }), el('thead', {}, head));
  table.append(el('tbody', {}, ...rows));
  // Scrolls sideways on a narrow screen: reachable by keyboard, and named.
  return el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption }, table);
}

/** A titled list of `items`, or nothing when there are none. */
function listOf(title, items, line) {
  if (!items.length) return [];
  return [el('h3', { text: title }), el('ul', {}, ...items.map((item) => el('li', { text: line(item) })))];
}

function agentView(agent, index) {
  const title = `agent-${index}`;
  return el(
    'article',
    { 'aria-labelledby': title, 'data-session': agent.session_name },
    el('h2', { id: title, text: agent.session_name }),
    el('p', {
      class: 'meta',
      text: `${agent.description} — branch ${agent.branch}, task ${agent.task_id}; since ${time(agent.started_at)}, reaped ${fromNow(agent.expires_at)} unless it calls again`,
    }),
    reservationTable(agent),
    ...listOf('Open todos', agent.todos, (t) => `[p${t.priority}] ${t.text} (${t.status})`),
    ...listOf(
      'Unanswered questions',
      agent.unanswered,
      (m) =>
        `from ${m.from} at ${time(m.timestamp)}${m.query_type ? ` (${m.query_type})` : ''}: ${m.content}`,
    ),
  );
}

function show(view) {
  $('notice').hidden = true;
  const count = view.agents.length;
  $('summary').textContent =
    `Project ${view.project_id}: ${count} active agent${count === 1 ? '' : 's'}, as of ${new Date().toLocaleTimeString()}.`;
  $('agents').replaceChildren(...view.agents.map(agentView));
}

function fail(error) {
  $('notice').textContent = error.name === 'TimeoutError' ? 'The hub did not answer in time.' : error.message;
  $('notice').hidden = false;
}

let timer;
let asking = false;

/** Asks for the overview now (unless a call is under way), and again later while visible. */
async function refresh() {
  clearTimeout(timer);
  if (!asking) {
    asking = true;
    await overview($('project').value.trim()).then(show, fail);
    asking = false;
  }
  if (!document.hidden) timer = setTimeout(refresh, REFRESH_MS);
}

$('show').addEventListener('submit', (event) => {
  event.preventDefault();
  const kind = $('credential-kind').value;
  const value = $('credential-value').value;
  if (kind === 'none' || !value) sessionStorage.removeItem(CREDENTIAL);
  else sessionStorage.setItem(CREDENTIAL, JSON.stringify({ kind, value }));
  const url = new URL(location.href);
  const project = $('project').value.trim();
  if (project) url.searchParams.set('project', project);
  else url.searchParams.delete('project');
  history.replaceState(null, '', url);
  refresh();
});
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refresh();
});

$('project').value = new URLSearchParams(location.search).get('project') || '';
refresh();
