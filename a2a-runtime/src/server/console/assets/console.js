// The console's entry: finds the agent (on a host, the one opened or the primary, with a
// picker of the others from the host's catalog), reads its card and MCP tools, asks to sign in
// when the agent answers 401, and fills the views: try, watch, MCP, administration.

import { initAdmin, showAdmin } from './admin.js';
import { $, agent, el, mcp, OPENED_UNDER, remember, SignInNeeded, serverGet } from './http.js';
import { showMcp } from './mcp.js';
import { cancel, skillForm } from './run.js';
import { finishSignIn, startSignIn } from './signin.js';
import { initWatch, listTasks } from './watch.js';

function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}

/**
 * On a host, the agent this console shows (the one whose path it was opened under, else the
 * primary one), with a picker of the others from the host's catalog (`/agents`).
 */
async function hostAgent(server) {
  if (!server.host) return null;
  const answer = await serverGet('/agents').catch(() => ({ status: 0 }));
  const agents = answer.status === 200 ? answer.body?.agents : null;
  if (!Array.isArray(agents) || agents.length === 0) return null;
  const opened = agents.find((entry) => `/${entry.id}` === OPENED_UNDER);
  const chosen = opened || agents.find((entry) => entry.primary) || agents[0];
  agent.base = `/${chosen.id}`;
  pickerOf(agents, chosen);
  return chosen.id;
}

/** Links to each agent's console; the one shown is marked current, a remote says its health. */
function pickerOf(agents, chosen) {
  const links = agents.map((entry) => {
    const name = entry.card?.name || entry.id;
    const link = el('a', { href: `/${encodeURIComponent(entry.id)}/console`, text: name });
    if (entry.id === chosen.id) link.setAttribute('aria-current', 'page');
    const primary = entry.primary ? el('span', { class: 'hint', text: ' (primary)' }) : '';
    const remote = entry.remote
      ? el('span', { class: 'hint', text: ` (remote, ${entry.remote.state})`, title: entry.remote.reason })
      : '';
    return el('li', {}, link, primary, remote);
  });
  $('agent-list').replaceChildren(...links);
  $('agents').hidden = false;
}

/** The card as facts, and a form per skill. */
function showCard(card, tools) {
  $('agent-name').textContent = card.name;
  $('agent-description').textContent = card.description || '';
  document.title = `${card.name} — console`;
  const facts = $('card-facts');
  facts.replaceChildren();
  const fact = (name, value) => {
    if (value) facts.append(el('dt', { text: name }), el('dd', { text: value }));
  };
  fact('Version', card.version);
  fact('Provider', card.provider ? `${card.provider.organization} (${card.provider.url})` : '');
  fact(
    'Protocol',
    (card.supportedInterfaces || []).map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', '),
  );
  fact('Streaming', card.capabilities?.streaming ? 'yes' : 'no');
  $('card').hidden = false;
  $('skill-list').replaceChildren(
    ...(card.skills || []).map((skill) => skillForm(skill, tools.get(skill.id))),
  );
  $('skills').hidden = false;
}

function signIn() {
  for (const id of ['card', 'skills', 'run', 'watch', 'mcp', 'admin']) $(id).hidden = true;
  $('sign-in').hidden = false;
  $('credential-value').focus();
}

/** What the server has (`/console/server.json`): a host's catalog, administrative endpoints. */
async function serverFacts() {
  const answer = await serverGet('/console/server.json').catch(() => ({ status: 0 }));
  return answer.status === 200 ? answer.body : { host: false, oauth: false, admin: [] };
}

async function load() {
  notice('');
  const server = await serverFacts();
  $('oauth-sign-in').hidden = !server.oauth;
  const hosted = await hostAgent(server);
  const answer = await serverGet(`${agent.base}/.well-known/agent-card.json`).catch((error) => ({
    status: 0,
    body: error.message,
  }));
  if (answer.status !== 200) {
    notice(`The agent card could not be read: ${answer.status ? `HTTP ${answer.status}` : answer.body}`);
    return;
  }
  const card = answer.body;
  $('agent-name').textContent = card.name;
  try {
    const listed = await mcp('tools/list');
    const tools = new Map((listed.tools || []).map((tool) => [tool.name, tool]));
    $('sign-in').hidden = true;
    showCard(card, tools);
    $('watch').hidden = false;
    await Promise.all([listTasks(), showMcp(tools), showAdmin(server.admin, hosted)]);
  } catch (error) {
    if (error instanceof SignInNeeded) signIn();
    else notice(error.message);
  }
}

/** Finishes a sign-in the page may be the answer to, then loads. */
async function start() {
  let refused = '';
  try {
    if ((await finishSignIn()) === 'left') return;
  } catch (error) {
    refused = error.message;
  }
  await load();
  // Shown after loading, which clears the notice: the sign-in prompt comes with the reason.
  if (refused) notice(refused);
}

$('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  remember($('credential-kind').value, $('credential-value').value);
  load();
});
$('oauth-sign-in').addEventListener('click', () => startSignIn().catch((error) => notice(error.message)));
$('cancel').addEventListener('click', cancel);
document.addEventListener('sign-in-needed', signIn);
initWatch();
initAdmin();
start();
