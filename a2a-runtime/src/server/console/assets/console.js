// The console: the agent's card, a form per skill built from its input schema (as the MCP
// tool list gives it), and a task run over A2A with streaming, its status, progress,
// artifacts and questions shown as they come. Everything goes to this agent's own endpoints
// with the credential the person entered (kept in sessionStorage, this tab only).
'use strict';

const BASE = location.pathname.replace(/\/console\/?$/, '').replace(/\/$/, '');
const CREDENTIAL = 'a2a-console-credential';
const SCHEMA_MEDIA_TYPE = 'application/schema+json';
const MCP_VERSION = '2026-07-28';
const TERMINAL = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

const $ = (id) => document.getElementById(id);

/** An element with attributes and children. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) node.append(child);
  return node;
}

class SignInNeeded extends Error {}

function credentialHeaders() {
  const stored = sessionStorage.getItem(CREDENTIAL);
  if (!stored) return {};
  const { kind, value } = JSON.parse(stored);
  return kind === 'api-key' ? { 'X-API-Key': value } : { Authorization: `Bearer ${value}` };
}

function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}

/** The JSON-RPC responses in a body: one JSON document, or SSE `data:` lines. */
function responses(text, contentType) {
  if (!contentType.includes('text/event-stream')) return [JSON.parse(text)];
  return text.split('\n').filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim()).filter((data) => data).map((data) => JSON.parse(data));
}

let rpcId = 0;

/** One MCP request (stateless, 2026-07-28) to this agent: its result. */
async function mcp(method, params = {}) {
  const body = {
    jsonrpc: '2.0', id: ++rpcId, method,
    params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MCP_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } },
  };
  // 2026-07-28 mirrors the method, and the tool, prompt or resource named, in headers.
  const named = params.name ?? params.uri;
  const response = await fetch(`${BASE}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MCP_VERSION, 'Mcp-Method': method,
      ...(named === undefined ? {} : { 'Mcp-Name': named }), ...credentialHeaders(),
    },
    body: JSON.stringify(body),
  });
  if (response.status === 401) throw new SignInNeeded();
  const text = await response.text();
  const answer = responses(text, response.headers.get('Content-Type') || '').find((r) => r.id === body.id);
  if (!answer) throw new Error(`${method}: HTTP ${response.status}`);
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/** Resolves a local `$ref` of `root`. */
function resolved(schema, root) {
  let current = schema || {};
  for (let depth = 0; current.$ref && depth < 16; depth++) {
    const path = current.$ref.replace(/^#\//, '').split('/');
    current = path.reduce((node, key) => (node ? node[key] : undefined), root) || {};
  }
  return current;
}

/** The schema of an optional value without its `null` alternative. */
function unwrapped(schema, root) {
  const options = schema.anyOf || schema.oneOf;
  if (options) {
    const rest = options.filter((option) => resolved(option, root).type !== 'null');
    if (rest.length === 1) return { schema: resolved(rest[0], root), nullable: true };
  }
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    return { schema: { ...schema, type: schema.type.find((t) => t !== 'null') }, nullable: true };
  }
  return { schema, nullable: false };
}

let fieldCount = 0;

/**
 * A form control for `schema`, named `name`: its element, and `read()` giving the value
 * entered (`undefined` when an optional one is left empty).
 */
function control(name, given, root, required) {
  const { schema, nullable } = unwrapped(resolved(given, root), root);
  const id = `field-${++fieldCount}`;
  const optional = !required || nullable;
  const label = el('label', { for: id, text: name },
    optional ? el('span', { class: 'hint', text: ' (optional)' }) : '');
  const hint = schema.description || given.description;
  const described = hint ? el('span', { class: 'hint', id: `${id}-hint`, text: hint }) : '';
  const describedBy = hint ? `${id}-hint` : undefined;
  if (schema.enum || schema.oneOf?.every((o) => 'const' in o)) {
    const values = schema.enum || schema.oneOf.map((o) => o.const);
    const select = el('select', { id, 'aria-describedby': describedBy });
    if (optional) select.append(el('option', { value: '', text: '—' }));
    for (const value of values) select.append(el('option', { value: JSON.stringify(value), text: String(value) }));
    return { element: el('div', { class: 'item' }, label, described, select), read: () => (select.value === '' ? undefined : JSON.parse(select.value)) };
  }
  if (schema.type === 'boolean') {
    const box = el('input', { id, type: 'checkbox', 'aria-describedby': describedBy });
    return { element: el('div', { class: 'item' }, el('span', {}, box, ' ', label), described), read: () => box.checked };
  }
  if (schema.type === 'object' && schema.properties) {
    const fieldset = el('fieldset', {}, el('legend', { text: name }));
    if (described) fieldset.append(described);
    const fields = objectControls(schema, root, fieldset);
    return {
      element: fieldset,
      read: () => {
        const value = readFields(fields);
        return optional && Object.keys(value).length === 0 ? undefined : value;
      },
    };
  }
  if (schema.type === 'array') {
    const items = [];
    const list = el('div', { class: 'items' });
    const add = el('button', { type: 'button', class: 'secondary', text: `Add to ${name}` });
    add.addEventListener('click', () => {
      const item = control(`${name} ${items.length + 1}`, schema.items || {}, root, true);
      const remove = el('button', { type: 'button', class: 'secondary', text: 'Remove' });
      const row = el('div', { class: 'item' }, item.element, remove);
      remove.addEventListener('click', () => { row.remove(); items.splice(items.indexOf(item), 1); });
      items.push(item);
      list.append(row);
    });
    const fieldset = el('fieldset', {}, el('legend', { text: name }), described, list, add);
    return { element: fieldset, read: () => (optional && items.length === 0 ? undefined : items.map((i) => i.read())) };
  }
  const numeric = schema.type === 'number' || schema.type === 'integer';
  const input = el('input', {
    id, type: numeric ? 'number' : 'text', step: schema.type === 'integer' ? '1' : (numeric ? 'any' : undefined),
    required: !optional, 'aria-describedby': describedBy, placeholder: given.examples?.[0] ?? undefined,
  });
  return {
    element: el('div', { class: 'item' }, label, described, input),
    read: () => {
      if (input.value === '') return optional ? undefined : (numeric ? undefined : '');
      return numeric ? Number(input.value) : input.value;
    },
  };
}

/** The controls of an object schema's properties, appended to `parent`. */
function objectControls(schema, root, parent) {
  const required = new Set(schema.required || []);
  return Object.entries(schema.properties || {}).map(([name, property]) => {
    const field = control(name, property, root, required.has(name));
    parent.append(field.element);
    return [name, field];
  });
}

function readFields(fields) {
  const value = {};
  for (const [name, field] of fields) {
    const read = field.read();
    if (read !== undefined) value[name] = read;
  }
  return value;
}

/** The card as facts, and a form per skill. */
function showCard(card, tools) {
  $('agent-name').textContent = card.name;
  $('agent-description').textContent = card.description || '';
  document.title = `${card.name} — console`;
  const facts = $('card-facts');
  facts.replaceChildren();
  const fact = (name, value) => { if (value) facts.append(el('dt', { text: name }), el('dd', { text: value })); };
  fact('Version', card.version);
  fact('Provider', card.provider ? `${card.provider.organization} (${card.provider.url})` : '');
  fact('Protocol', (card.supportedInterfaces || []).map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', '));
  fact('Streaming', card.capabilities?.streaming ? 'yes' : 'no');
  $('card').hidden = false;
  const list = $('skill-list');
  list.replaceChildren();
  for (const skill of card.skills || []) list.append(skillForm(skill, tools.get(skill.id)));
  $('skills').hidden = false;
}

function skillForm(skill, tool) {
  const details = el('details', { class: 'skill', id: `skill-${skill.id}` },
    el('summary', {}, el('h3', { text: skill.name || skill.id })));
  details.append(el('p', { text: skill.description || '' }));
  if (skill.tags?.length) details.append(el('p', { class: 'tags' }, ...skill.tags.map((t) => el('span', { class: 'tag', text: t }))));
  if (skill.examples?.length) details.append(el('p', { class: 'hint', text: `Examples: ${skill.examples.join('; ')}` }));
  const form = el('form', { 'aria-label': `Run ${skill.name || skill.id}` });
  const schema = tool?.inputSchema || { type: 'object', properties: {} };
  const fields = objectControls(schema, schema, form);
  form.append(el('button', { type: 'submit', text: `Run ${skill.id}` }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(skill.id, { parts: [{ data: readFields(fields) }], metadata: { skill: skill.id } });
  });
  details.append(form);
  return details;
}

/** The MCP view: tools with a form each (called through `/mcp`), resources, prompts. */
async function showMcp(tools) {
  const toolList = $('mcp-tool-list');
  toolList.replaceChildren();
  for (const tool of tools.values()) {
    const form = el('form', { id: `tool-${tool.name}`, 'aria-label': `Call ${tool.name} over MCP` });
    form.append(el('h3', { text: tool.name }), el('p', { class: 'hint', text: tool.description || '' }));
    const schema = tool.inputSchema || { type: 'object', properties: {} };
    const fields = objectControls(schema, schema, form);
    form.append(el('button', { type: 'submit', text: `Call ${tool.name}` }));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const output = $('mcp-output');
      output.hidden = false;
      output.textContent = 'Calling…';
      try {
        const result = await mcp('tools/call', { name: tool.name, arguments: readFields(fields) });
        const text = (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
        const shown = result.structuredContent ? JSON.stringify(result.structuredContent, null, 2) : text;
        output.textContent = `${result.isError ? 'Tool error' : 'Result'} of ${tool.name}:\n${shown}`;
      } catch (error) {
        output.textContent = error instanceof SignInNeeded ? 'Sign in again.' : error.message;
      }
    });
    toolList.append(el('div', { class: 'artifact' }, form));
  }
  const listed = async (method) => mcp(method).catch(() => ({}));
  const [resources, templates, prompts] = await Promise.all([
    listed('resources/list'), listed('resources/templates/list'), listed('prompts/list'),
  ]);
  const resourceList = $('mcp-resource-list');
  resourceList.replaceChildren(
    ...(resources.resources || []).map((r) => el('li', { text: `${r.uri} — ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}` })),
    ...(templates.resourceTemplates || []).map((t) => el('li', { text: `${t.uriTemplate} — ${t.name} (template)` })),
  );
  $('mcp-prompt-list').replaceChildren(...(prompts.prompts || []).map((p) => el('li', {
    text: `${p.name}: ${p.description || ''}${(p.arguments || []).length ? ` (${p.arguments.map((a) => a.name).join(', ')})` : ''}`,
  })));
  $('mcp').hidden = false;
}

let current = null;

function raw(label, value) {
  const pre = $('raw');
  pre.textContent += `${label}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n\n`;
}

/** Sends a message over SendStreamingMessage and shows its events as they arrive. */
async function run(skill, message) {
  const body = {
    jsonrpc: '2.0', id: ++rpcId, method: 'SendStreamingMessage',
    params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', ...message } },
  };
  if (!current || current.skill !== skill || !message.taskId) {
    $('run-output').replaceChildren();
    $('raw').textContent = '';
  }
  $('run').hidden = false;
  $('run-question').replaceChildren();
  $('run-status').textContent = 'Sending…';
  raw('→ request', body);
  let response;
  try {
    response = await fetch(`${BASE}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'A2A-Version': '1.0', ...credentialHeaders() },
      body: JSON.stringify(body),
    });
  } catch (error) {
    $('run-status').textContent = `Not sent: ${error.message}`;
    return;
  }
  if (response.status === 401) { signIn(); return; }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const item = JSON.parse(line.slice(5));
        raw('← event', item);
        if (item.error) { $('run-status').textContent = `Error: ${item.error.message}`; continue; }
        show(skill, item.result);
      }
    }
  }
  if (buffer.trim().startsWith('{')) {
    const item = JSON.parse(buffer);
    raw('← response', item);
    $('run-status').textContent = item.error ? `Error: ${item.error.message}` : 'Done';
  }
}

/** One StreamResponse: a task, a status update, an artifact update or a message. */
function show(skill, result) {
  if (!result) return;
  const task = result.task;
  const status = task?.status || result.statusUpdate?.status;
  const taskId = task?.id || result.statusUpdate?.taskId || result.artifactUpdate?.taskId;
  if (taskId) current = { skill, taskId, contextId: task?.contextId || result.statusUpdate?.contextId || current?.contextId };
  for (const artifact of task?.artifacts || []) showArtifact(artifact, false);
  if (result.artifactUpdate) showArtifact(result.artifactUpdate.artifact, result.artifactUpdate.append);
  if (result.message) $('run-output').append(el('div', { class: 'artifact' }, ...result.message.parts.map(partView)));
  if (status) showStatus(skill, status);
}

function showStatus(skill, status) {
  const state = status.state || '';
  const name = state.replace('TASK_STATE_', '').toLowerCase().replace('_', '-');
  const line = $('run-status');
  line.textContent = `State: ${name}`;
  line.className = `state-${name}`;
  const text = (status.message?.parts || []).filter((p) => 'text' in p).map((p) => p.text).join(' ');
  $('run-progress').textContent = state === 'TASK_STATE_WORKING' ? text : '';
  $('cancel').hidden = TERMINAL.includes(state) || !current;
  $('run-question').replaceChildren();
  if (state === 'TASK_STATE_INPUT_REQUIRED') askForm(skill, status.message);
  if (TERMINAL.includes(state) && text && state !== 'TASK_STATE_COMPLETED') $('run-progress').textContent = text;
}

/** A question as a form of its own schema; the answer continues the task. */
function askForm(skill, message) {
  const prompt = (message?.parts || []).filter((p) => 'text' in p).map((p) => p.text).join(' ');
  const schemaPart = (message?.parts || []).find((p) => p.mediaType === SCHEMA_MEDIA_TYPE && 'data' in p);
  const form = el('form', { 'aria-label': 'Answer the question' }, el('p', { class: 'question', text: prompt }));
  let read;
  if (schemaPart) {
    const schema = schemaPart.data;
    if (schema.type === 'object' && schema.properties) {
      const fields = objectControls(schema, schema, form);
      read = () => ({ data: readFields(fields) });
    } else {
      const field = control('answer', schema, schema, true);
      form.append(field.element);
      read = () => ({ data: field.read() });
    }
  } else {
    const field = control('answer', { type: 'string' }, {}, true);
    form.append(field.element);
    read = () => ({ text: String(field.read() ?? '') });
  }
  form.append(el('button', { type: 'submit', text: 'Answer' }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(skill, { parts: [read()], taskId: current.taskId, contextId: current.contextId });
  });
  $('run-question').append(form);
}

const artifactViews = new Map();

function showArtifact(artifact, append) {
  let view = artifactViews.get(artifact.artifactId);
  if (!view || !view.isConnected) {
    view = el('div', { class: 'artifact', 'data-artifact': artifact.name || artifact.artifactId },
      el('h3', { text: artifact.name || 'Artifact' }));
    artifactViews.set(artifact.artifactId, view);
    $('run-output').append(view);
  } else if (!append) {
    view.replaceChildren(el('h3', { text: artifact.name || 'Artifact' }));
  }
  for (const part of artifact.parts || []) view.append(partView(part));
}

/** A part as text, pretty JSON, an image, or a file to download. */
function partView(part) {
  if ('text' in part) return el('pre', { text: part.text });
  if ('data' in part) return el('pre', { text: JSON.stringify(part.data, null, 2) });
  if ('raw' in part) {
    const bytes = Uint8Array.from(atob(part.raw), (c) => c.charCodeAt(0));
    const url = URL.createObjectURL(new Blob([bytes], { type: part.mediaType || 'application/octet-stream' }));
    if ((part.mediaType || '').startsWith('image/')) return el('img', { src: url, alt: part.filename || 'image' });
    return el('a', { href: url, download: part.filename || 'file', text: `Download ${part.filename || 'file'}` });
  }
  if ('url' in part) return el('a', { href: part.url, text: part.filename || part.url, rel: 'noopener' });
  return el('pre', { text: JSON.stringify(part) });
}

async function cancel() {
  if (!current) return;
  const body = { jsonrpc: '2.0', id: ++rpcId, method: 'CancelTask', params: { id: current.taskId } };
  raw('→ request', body);
  const response = await fetch(`${BASE}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...credentialHeaders() },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  raw('← response', answer);
  if (answer.result?.status) showStatus(current.skill, answer.result.status);
}

function signIn() {
  $('card').hidden = true;
  $('skills').hidden = true;
  $('run').hidden = true;
  $('sign-in').hidden = false;
  $('credential-value').focus();
}

async function load() {
  notice('');
  let card;
  try {
    const response = await fetch(`${BASE}/.well-known/agent-card.json`, { headers: { Accept: 'application/json' } });
    card = await response.json();
  } catch (error) {
    notice(`The agent card could not be read: ${error.message}`);
    return;
  }
  $('agent-name').textContent = card.name;
  try {
    const listed = await mcp('tools/list');
    const tools = new Map((listed.tools || []).map((tool) => [tool.name, tool]));
    $('sign-in').hidden = true;
    showCard(card, tools);
    await showMcp(tools);
  } catch (error) {
    if (error instanceof SignInNeeded) signIn();
    else notice(error.message);
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(CREDENTIAL, JSON.stringify({ kind: $('credential-kind').value, value: $('credential-value').value }));
    load();
  });
  $('cancel').addEventListener('click', cancel);
  load();
});
