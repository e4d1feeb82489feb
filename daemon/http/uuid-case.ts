// Ids are stored lower-case, and a UUID is the same in either case (RFC 9562): an id written in
// capitals must find its row, not a 404 or "not an environment of this team".

export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type SchemaNode = {
  format?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
};

/** Path and query values: every one that is a UUID (none of them is free text). */
export function lowerCaseUuids(values: unknown): void {
  if (values === null || typeof values !== 'object') return;
  const record = values as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) if (typeof v === 'string' && UUID_TEXT.test(v)) record[k] = v.toLowerCase();
}

/**
 * A body's values where its schema says `format: uuid` (ids, not prompts or event payloads, which
 * are the sender's text). Runs before validation, so the body may have any shape.
 */
export function lowerCaseBodyUuids(schema: unknown, body: unknown): unknown {
  const node = schema as SchemaNode | undefined;
  if (!node || !holdsUuids(node)) return body;
  return walk(node, body);
}

function walk(node: SchemaNode, value: unknown): unknown {
  if (typeof value === 'string') return isUuidNode(node) && UUID_TEXT.test(value) ? value.toLowerCase() : value;
  for (const variant of node.anyOf ?? node.oneOf ?? []) value = walk(variant, value);
  if (Array.isArray(value)) {
    if (node.items) for (let i = 0; i < value.length; i++) value[i] = walk(node.items, value[i]);
  } else if (value !== null && typeof value === 'object' && node.properties) {
    const record = value as Record<string, unknown>;
    for (const [key, child] of Object.entries(node.properties)) {
      if (Object.hasOwn(record, key)) record[key] = walk(child, record[key]);
    }
  }
  return value;
}

function isUuidNode(node: SchemaNode): boolean {
  return node.format === 'uuid' || (node.anyOf ?? node.oneOf ?? []).some(isUuidNode);
}

/** Whether a schema has a uuid anywhere: most bodies (an event's) have none and are not walked. */
const holdsCache = new WeakMap<SchemaNode, boolean>();
function holdsUuids(node: SchemaNode): boolean {
  let known = holdsCache.get(node);
  if (known === undefined) {
    known =
      node.format === 'uuid' ||
      [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...Object.values(node.properties ?? {}), ...(node.items ? [node.items] : [])].some(holdsUuids);
    holdsCache.set(node, known);
  }
  return known;
}
