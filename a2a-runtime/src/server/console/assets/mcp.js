// The MCP view: the agent's tools (each with a form, called through `/mcp`), resources,
// templates and prompts, as an MCP host sees them.

import { objectControls, readFields } from './forms.js';
import { $, el, mcp, SignInNeeded } from './http.js';

/**
 * Fills the MCP view from `tools` (the `tools/list` answer, by name) and, as `server/discover`
 * declares them, the resources, templates and prompts.
 */
export async function showMcp(tools) {
  $('mcp-tool-list').replaceChildren(...[...tools.values()].map(toolForm));
  const discovered = await mcp('server/discover').catch(() => ({}));
  const capabilities = discovered.capabilities || {};
  $('mcp-instructions').textContent = discovered.instructions || '';
  // A list the server does not declare is "method not found" (HTTP 404): not asked for.
  const listed = async (method, capability) =>
    capabilities[capability] ? mcp(method).catch(() => ({})) : {};
  const [resources, templates, prompts] = await Promise.all([
    listed('resources/list', 'resources'),
    listed('resources/templates/list', 'resources'),
    listed('prompts/list', 'prompts'),
  ]);
  $('mcp-resource-list').replaceChildren(
    ...(resources.resources || []).map((r) =>
      el('li', { text: `${r.uri} — ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}` }),
    ),
    ...(templates.resourceTemplates || []).map((t) =>
      el('li', { text: `${t.uriTemplate} — ${t.name} (template)` }),
    ),
  );
  $('mcp-prompt-list').replaceChildren(
    ...(prompts.prompts || []).map((p) =>
      el('li', {
        text: `${p.name}: ${p.description || ''}${(p.arguments || []).length ? ` (${p.arguments.map((a) => a.name).join(', ')})` : ''}`,
      }),
    ),
  );
  $('mcp').hidden = false;
}

/** A tool's form; its result is shown as the client gets it. */
function toolForm(tool) {
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
      const text = (result.content || [])
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('\n');
      const shown = result.structuredContent ? JSON.stringify(result.structuredContent, null, 2) : text;
      output.textContent = `${result.isError ? 'Tool error' : 'Result'} of ${tool.name}:\n${shown}`;
    } catch (error) {
      output.textContent = error instanceof SignInNeeded ? 'Sign in again.' : error.message;
    }
  });
  return el('div', { class: 'artifact' }, form);
}
