// Forms built from JSON Schemas (a skill's input, a question's answer): a labelled control per
// property, nested objects as fieldsets, arrays with add and remove, enums as selects.

import { el } from './http.js';

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
 * A form control for `given` (a schema of `root`), named `name`: its element, and `read()`
 * giving the value entered (`undefined` when an optional one is left empty).
 */
export function control(name, given, root, required) {
  const { schema, nullable } = unwrapped(resolved(given, root), root);
  const id = `field-${++fieldCount}`;
  const optional = !required || nullable;
  const label = el(
    'label',
    { for: id, text: name },
    optional ? el('span', { class: 'hint', text: ' (optional)' }) : '',
  );
  const hint = schema.description || given.description;
  const described = hint ? el('span', { class: 'hint', id: `${id}-hint`, text: hint }) : '';
  const describedBy = hint ? `${id}-hint` : undefined;
  if (schema.enum || schema.oneOf?.every((o) => 'const' in o)) {
    return choice(schema, { id, optional, label, described, describedBy });
  }
  if (schema.type === 'boolean') {
    const box = el('input', { id, type: 'checkbox', 'aria-describedby': describedBy });
    return {
      element: el('div', { class: 'item' }, el('span', {}, box, ' ', label), described),
      read: () => box.checked,
    };
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
  if (schema.type === 'array') return list(name, schema, root, { optional, described });
  const numeric = schema.type === 'number' || schema.type === 'integer';
  const input = el('input', {
    id,
    type: numeric ? 'number' : 'text',
    step: schema.type === 'integer' ? '1' : numeric ? 'any' : undefined,
    required: !optional,
    'aria-describedby': describedBy,
    placeholder: given.examples?.[0] ?? undefined,
  });
  return {
    element: el('div', { class: 'item' }, label, described, input),
    read: () => {
      if (input.value === '') return optional ? undefined : numeric ? undefined : '';
      return numeric ? Number(input.value) : input.value;
    },
  };
}

/** An enum (or `oneOf` constants) as a select. */
function choice(schema, { id, optional, label, described, describedBy }) {
  const values = schema.enum || schema.oneOf.map((o) => o.const);
  const select = el('select', { id, 'aria-describedby': describedBy });
  if (optional) select.append(el('option', { value: '', text: '—' }));
  for (const value of values)
    select.append(el('option', { value: JSON.stringify(value), text: String(value) }));
  return {
    element: el('div', { class: 'item' }, label, described, select),
    read: () => (select.value === '' ? undefined : JSON.parse(select.value)),
  };
}

/** An array as a list of item controls, with buttons to add and remove items. */
function list(name, schema, root, { optional, described }) {
  const items = [];
  const rows = el('div', { class: 'items' });
  const add = el('button', { type: 'button', class: 'secondary', text: `Add to ${name}` });
  add.addEventListener('click', () => {
    const item = control(`${name} ${items.length + 1}`, schema.items || {}, root, true);
    const remove = el('button', { type: 'button', class: 'secondary', text: 'Remove' });
    const row = el('div', { class: 'item' }, item.element, remove);
    remove.addEventListener('click', () => {
      row.remove();
      items.splice(items.indexOf(item), 1);
    });
    items.push(item);
    rows.append(row);
  });
  const fieldset = el('fieldset', {}, el('legend', { text: name }), described, rows, add);
  return {
    element: fieldset,
    read: () => (optional && items.length === 0 ? undefined : items.map((i) => i.read())),
  };
}

/** The controls of an object schema's properties, appended to `parent`. */
export function objectControls(schema, root, parent) {
  const required = new Set(schema.required || []);
  return Object.entries(schema.properties || {}).map(([name, property]) => {
    const field = control(name, property, root, required.has(name));
    parent.append(field.element);
    return [name, field];
  });
}

/** The values entered in `fields`, the empty optional ones left out. */
export function readFields(fields) {
  const value = {};
  for (const [name, field] of fields) {
    const read = field.read();
    if (read !== undefined) value[name] = read;
  }
  return value;
}
