// What every view uses: elements, the credential the person entered, and this agent's A2A and
// MCP endpoints (JSON-RPC, MCP, SSE streams read as they arrive).

/** The path the console was opened under: `` at a server's root, `/{id}` for a host's agent. */
export const OPENED_UNDER = location.pathname.replace(/\/console\/?$/, '').replace(/\/$/, '');
const CREDENTIAL = 'a2a-console-credential';
const MCP_VERSION = '2026-07-28';
/** The most bytes of one response the page reads: bounded like every other reader. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The states after which a task changes no more. */
export const TERMINAL = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
];

export const $ = (id) => document.getElementById(id);

/** An element with attributes and children. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) node.append(child);
  return node;
}

/** A task state as people read it: `TASK_STATE_INPUT_REQUIRED` is `input-required`. */
export function stateName(state) {
  return (state || '').replace('TASK_STATE_', '').toLowerCase().replaceAll('_', '-');
}

/** The agent credentials go to: where the page was opened, or the host's chosen agent. */
export const agent = { base: OPENED_UNDER };

/** The agent answered 401: the person must sign in (again). */
export class SignInNeeded extends Error {}

export function remember(kind, value) {
  sessionStorage.setItem(CREDENTIAL, JSON.stringify({ kind, value }));
}

export function credentialHeaders() {
  const stored = sessionStorage.getItem(CREDENTIAL);
  if (!stored) return {};
  const { kind, value } = JSON.parse(stored);
  return kind === 'api-key' ? { 'X-API-Key': value } : { Authorization: `Bearer ${value}` };
}

/** A response's body as text, refusing one larger than the page reads. */
export async function bodyText(response) {
  const declared = Number(response.headers.get('Content-Length') || 0);
  if (declared > MAX_RESPONSE_BYTES)
    throw new Error(`the answer is ${declared} bytes, more than the console reads`);
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) throw new Error('the answer is larger than the console reads');
  return text;
}

let rpcId = 0;

/** A new JSON-RPC request of `method`. */
export function request(method, params) {
  return { jsonrpc: '2.0', id: ++rpcId, method, params };
}

/** POSTs a JSON-RPC `body` to the agent's A2A endpoint; `stream` asks for SSE, `signal` aborts. */
export async function postA2a(body, stream = false, signal = undefined) {
  const response = await fetch(`${agent.base}/`, {
    method: 'POST',
    signal,
    headers: {
      'Content-Type': 'application/json',
      Accept: stream ? 'text/event-stream' : 'application/json',
      'A2A-Version': '1.0',
      ...credentialHeaders(),
    },
    body: JSON.stringify(body),
  });
  if (response.status === 401) throw new SignInNeeded();
  return response;
}

/** One A2A JSON-RPC call: its result, or an error naming the method and the agent's message. */
export async function a2a(method, params) {
  const response = await postA2a(request(method, params));
  const answer = JSON.parse(await bodyText(response));
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/**
 * Reads an SSE response as it arrives, handing each event's JSON to `onEvent`; a plain JSON
 * answer (an error before any event) is handed over too. Ends with the stream.
 */
export async function readEvents(response, onEvent) {
  if (!(response.headers.get('Content-Type') || '').includes('text/event-stream')) {
    onEvent(JSON.parse(await bodyText(response)));
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    if (buffer.length > MAX_RESPONSE_BYTES) throw new Error('an event is larger than the console reads');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('\n');
      if (data.trim()) onEvent(JSON.parse(data));
    }
  }
}

/** The JSON-RPC responses in a body: one JSON document, or SSE `data:` lines. */
function responses(text, contentType) {
  if (!contentType.includes('text/event-stream')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data)
    .map((data) => JSON.parse(data));
}

/** One MCP request (stateless, 2026-07-28) to this agent: its result. */
export async function mcp(method, params = {}) {
  const body = request(method, {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MCP_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  });
  // 2026-07-28 mirrors the method, and the tool, prompt or resource named, in headers.
  const named = params.name ?? params.uri;
  const response = await fetch(`${agent.base}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MCP_VERSION,
      'Mcp-Method': method,
      ...(named === undefined ? {} : { 'Mcp-Name': named }),
      ...credentialHeaders(),
    },
    body: JSON.stringify(body),
  });
  if (response.status === 401) throw new SignInNeeded();
  const text = await bodyText(response);
  const answer = responses(text, response.headers.get('Content-Type') || '').find((r) => r.id === body.id);
  if (!answer) throw new Error(`${method}: HTTP ${response.status}`);
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/**
 * `GET path` of this server with the credential: the status and the body (read within the
 * console's bound), JSON or text as the server answers.
 */
export async function serverGet(path) {
  const response = await fetch(path, {
    headers: { Accept: 'application/json, text/plain', ...credentialHeaders() },
  });
  const text = await bodyText(response);
  const json = (response.headers.get('Content-Type') || '').includes('json');
  return { status: response.status, body: json && text ? JSON.parse(text) : text };
}
