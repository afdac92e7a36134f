// Trying a skill: its form from the input schema, sent over A2A SendStreamingMessage, the
// task's status, progress, artifacts and questions shown as they come; cancel; the raw
// exchange beside it.

import { control, objectControls, readFields } from './forms.js';
import { $, bodyText, el, postA2a, readEvents, request, SignInNeeded, stateName, TERMINAL } from './http.js';
import { artifactView, partView } from './parts.js';

const SCHEMA_MEDIA_TYPE = 'application/schema+json';

/** The task the view shows: its skill, id and context. */
let current = null;
const artifactViews = new Map();

/** A skill of the card as a section with its form. */
export function skillForm(skill, tool) {
  const details = el(
    'details',
    { class: 'skill', id: `skill-${skill.id}` },
    el('summary', {}, el('h3', { text: skill.name || skill.id })),
  );
  details.append(el('p', { text: skill.description || '' }));
  if (skill.tags?.length)
    details.append(
      el('p', { class: 'tags' }, ...skill.tags.map((t) => el('span', { class: 'tag', text: t }))),
    );
  if (skill.examples?.length)
    details.append(el('p', { class: 'hint', text: `Examples: ${skill.examples.join('; ')}` }));
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

function raw(label, value) {
  $('raw').textContent +=
    `${label}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n\n`;
}

/** Sends a message over SendStreamingMessage and shows its events as they arrive. */
async function run(skill, message) {
  const body = request('SendStreamingMessage', {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', ...message },
  });
  if (!current || current.skill !== skill || !message.taskId) {
    $('run-output').replaceChildren();
    $('raw').textContent = '';
    current = null;
  }
  $('run').hidden = false;
  $('run-question').replaceChildren();
  $('run-status').textContent = 'Sending…';
  raw('→ request', body);
  try {
    const response = await postA2a(body, true);
    await readEvents(response, (item) => {
      raw('← event', item);
      if (item.error) $('run-status').textContent = `Error: ${item.error.message}`;
      else show(skill, item.result);
    });
  } catch (error) {
    if (error instanceof SignInNeeded) document.dispatchEvent(new CustomEvent('sign-in-needed'));
    else $('run-status').textContent = `Not sent: ${error.message}`;
  }
  document.dispatchEvent(new CustomEvent('tasks-changed'));
}

/** One StreamResponse: a task, a status update, an artifact update or a message. */
function show(skill, result) {
  if (!result) return;
  const task = result.task;
  const status = task?.status || result.statusUpdate?.status;
  const taskId = task?.id || result.statusUpdate?.taskId || result.artifactUpdate?.taskId;
  if (taskId)
    current = {
      skill,
      taskId,
      contextId: task?.contextId || result.statusUpdate?.contextId || current?.contextId,
    };
  for (const artifact of task?.artifacts || []) showArtifact(artifact, false);
  if (result.artifactUpdate) showArtifact(result.artifactUpdate.artifact, result.artifactUpdate.append);
  if (result.message)
    $('run-output').append(el('div', { class: 'artifact' }, ...result.message.parts.map(partView)));
  if (status) showStatus(skill, status);
}

function showStatus(skill, status) {
  const state = status.state || '';
  const name = stateName(state);
  const line = $('run-status');
  line.textContent = `State: ${name}`;
  line.className = `state-${name}`;
  const text = (status.message?.parts || [])
    .filter((p) => 'text' in p)
    .map((p) => p.text)
    .join(' ');
  $('run-progress').textContent = state === 'TASK_STATE_WORKING' ? text : '';
  $('cancel').hidden = TERMINAL.includes(state) || !current;
  $('run-question').replaceChildren();
  if (state === 'TASK_STATE_INPUT_REQUIRED') askForm(skill, status.message);
  if (TERMINAL.includes(state) && text && state !== 'TASK_STATE_COMPLETED')
    $('run-progress').textContent = text;
}

/** A question as a form of its own schema; the answer continues the task. */
function askForm(skill, message) {
  const prompt = (message?.parts || [])
    .filter((p) => 'text' in p)
    .map((p) => p.text)
    .join(' ');
  const schemaPart = (message?.parts || []).find((p) => p.mediaType === SCHEMA_MEDIA_TYPE && 'data' in p);
  const form = el(
    'form',
    { 'aria-label': 'Answer the question' },
    el('p', { class: 'question', text: prompt }),
  );
  let read;
  if (schemaPart?.data?.type === 'object' && schemaPart.data.properties) {
    const fields = objectControls(schemaPart.data, schemaPart.data, form);
    read = () => ({ data: readFields(fields) });
  } else if (schemaPart) {
    const field = control('answer', schemaPart.data, schemaPart.data, true);
    form.append(field.element);
    read = () => ({ data: field.read() });
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

function showArtifact(artifact, append) {
  const view = artifactViews.get(artifact.artifactId);
  if (view?.isConnected && append) {
    for (const part of artifact.parts || []) view.append(partView(part));
    return;
  }
  const fresh = artifactView(artifact);
  if (view?.isConnected) view.replaceWith(fresh);
  else $('run-output').append(fresh);
  artifactViews.set(artifact.artifactId, fresh);
}

/** Cancels the task shown. */
export async function cancel() {
  if (!current) return;
  const body = request('CancelTask', { id: current.taskId });
  raw('→ request', body);
  try {
    const answer = JSON.parse(await bodyText(await postA2a(body)));
    raw('← response', answer);
    if (answer.result?.status) showStatus(current.skill, answer.result.status);
    if (answer.error) $('run-status').textContent = `Error: ${answer.error.message}`;
  } catch (error) {
    $('run-status').textContent = `Not canceled: ${error.message}`;
  }
}
