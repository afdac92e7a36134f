// Watching the caller's tasks: ListTasks with filters and pages, one task's history and
// artifacts (GetTask), and a running task followed live (SubscribeToTask).

import { $, a2a, el, postA2a, readEvents, request, SignInNeeded, stateName, TERMINAL } from './http.js';
import { artifactView, partView } from './parts.js';

/** The task shown in detail, and the stream following it, if any. */
let shown = null;
let following = null;
/** The next page's token of the listing shown. */
let nextPage = '';

/** The filters as ListTasks parameters. */
function filters(pageToken) {
  const params = { includeArtifacts: false, historyLength: 0 };
  const state = $('watch-state').value;
  const context = $('watch-context').value.trim();
  const size = Number($('watch-page-size').value);
  if (state) params.status = state;
  if (context) params.contextId = context;
  if (size > 0) params.pageSize = Math.min(size, 100);
  if (pageToken) params.pageToken = pageToken;
  return params;
}

/** Lists the caller's tasks as filtered; `more` appends the next page. */
export async function listTasks(more = false) {
  const summary = $('watch-summary');
  try {
    const listed = await a2a('ListTasks', filters(more ? nextPage : ''));
    const rows = $('task-rows');
    if (!more) rows.replaceChildren();
    for (const task of listed.tasks || []) rows.append(taskRow(task));
    nextPage = listed.nextPageToken || '';
    $('watch-more').hidden = !nextPage;
    const count = rows.children.length;
    summary.textContent = `${count} of ${listed.totalSize ?? count} task${listed.totalSize === 1 ? '' : 's'} shown.`;
  } catch (error) {
    if (error instanceof SignInNeeded) document.dispatchEvent(new CustomEvent('sign-in-needed'));
    else summary.textContent = error.message;
  }
}

function taskRow(task) {
  const open = el('button', {
    type: 'button',
    class: 'link',
    text: task.id,
    'aria-label': `Open task ${task.id}`,
  });
  open.addEventListener('click', () => openTask(task.id));
  const state = stateName(task.status?.state);
  return el(
    'tr',
    { 'data-task': task.id },
    el('td', { class: 'code' }, open),
    el('td', { class: `state-${state}`, text: state }),
    el('td', { text: task.status?.timestamp ? new Date(task.status.timestamp).toLocaleString() : '' }),
  );
}

/** Shows task `id`: its state, history and artifacts; a running one can be followed. */
async function openTask(id) {
  stopFollowing();
  try {
    const task = await a2a('GetTask', { id, historyLength: 100 });
    shown = task;
    $('task-title').textContent = `Task ${task.id}`;
    $('task-context').textContent = `Context ${task.contextId}`;
    $('task-history').replaceChildren(...(task.history || []).map(messageView));
    $('task-artifacts').replaceChildren(...(task.artifacts || []).map((a) => artifactView(a, 'h5')));
    showState(task.status);
    $('task-detail').hidden = false;
    $('task-title').focus();
  } catch (error) {
    $('watch-summary').textContent = error.message;
  }
}

function messageView(message) {
  const who = message.role === 'ROLE_AGENT' ? 'agent' : 'user';
  return el(
    'li',
    { class: `message from-${who}` },
    el('strong', { text: who }),
    ...(message.parts || []).map(partView),
  );
}

function showState(status) {
  const state = status?.state || '';
  const text = (status?.message?.parts || [])
    .filter((p) => 'text' in p)
    .map((p) => p.text)
    .join(' ');
  const line = $('task-state');
  line.textContent = `State: ${stateName(state)}${text ? ` — ${text}` : ''}`;
  line.className = `state-${stateName(state)}`;
  const done = TERMINAL.includes(state);
  $('task-follow').hidden = done || following !== null;
  $('task-stop').hidden = following === null;
}

/** Follows the shown task with SubscribeToTask until it ends or the person stops. */
async function follow() {
  if (!shown) return;
  const stream = new AbortController();
  following = stream;
  showState(shown.status);
  try {
    const response = await postA2a(request('SubscribeToTask', { id: shown.id }), true, stream.signal);
    await readEvents(response, (item) => {
      if (item.error) $('task-state').textContent = `Error: ${item.error.message}`;
      else followed(item.result);
    });
  } catch (error) {
    if (error.name !== 'AbortError') $('task-state').textContent = `Not followed: ${error.message}`;
  }
  if (following === stream) following = null;
  if (shown) showState(shown.status);
  document.dispatchEvent(new CustomEvent('tasks-changed'));
}

/** One event of the followed task. */
function followed(result) {
  if (!result || !shown) return;
  if (result.task) shown = { ...shown, ...result.task };
  if (result.statusUpdate) {
    shown.status = result.statusUpdate.status;
    if (result.statusUpdate.status.message)
      $('task-history').append(messageView(result.statusUpdate.status.message));
  }
  if (result.artifactUpdate) {
    const { artifact, append } = result.artifactUpdate;
    const existing = [...$('task-artifacts').children].find(
      (view) => view.dataset.artifact === (artifact.name || artifact.artifactId),
    );
    if (existing && append) for (const part of artifact.parts || []) existing.append(partView(part));
    else if (existing) existing.replaceWith(artifactView(artifact, 'h5'));
    else $('task-artifacts').append(artifactView(artifact, 'h5'));
  }
  showState(shown.status);
}

function stopFollowing() {
  following?.abort();
  following = null;
}

/** Wires the view's controls. */
export function initWatch() {
  $('watch-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    listTasks();
  });
  $('watch-more').addEventListener('click', () => listTasks(true));
  $('task-follow').addEventListener('click', follow);
  $('task-stop').addEventListener('click', () => {
    stopFollowing();
    showState(shown?.status);
  });
  document.addEventListener('tasks-changed', () => {
    if (!$('watch').hidden) listTasks();
  });
}
