/**
 * The DAG file's JSON Schema as a Kubernetes structural schema, the shape a CRD's validation
 * takes: what the DAG CRD (schemas.ts) stores a definition under.
 */
import { KEEP_UNKNOWN } from '../dag/kube-object.ts';
import { definitionName } from '../dag/schema-builders.ts';

/**
 * A JSON Schema of the DAG file turned into a Kubernetes structural schema. Structural schemas
 * need one type per field, so a polymorphic field (`anyOf` in the file format, or a `$ref`) is
 * left out of `properties` and its object marked to preserve unknown fields: the value is kept
 * exactly as written for core/dag to validate. `additionalProperties: false` goes (structural
 * schemas forbid it beside properties); `patternProperties` maps become `additionalProperties`.
 */
export function structural(schema: unknown): Record<string, unknown> {
  return structuralNode(schema) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

function structuralNode(schema: unknown): Record<string, unknown> | undefined {
  const node = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  if (node['x-kubernetes-preserve-unknown-fields'] === true) return node;
  if (leftOut(node)) return undefined;
  // A Kubernetes object the DAG JSON Schema stores once (affinity, volume, ...) is described
  // but not typed: a CRD cannot refer to it, and a copy at each use would make the CRD huge.
  // Handlers are steps, typed as before; their Kubernetes parts are such objects themselves.
  const definition = definitionName(node);
  if (definition !== undefined && definition !== 'step')
    return { type: 'object', description: node.description, 'x-kubernetes-preserve-unknown-fields': true };
  const children = ['additionalProperties', 'required', 'patternProperties', 'properties', 'items'];
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(node).filter(([key]) => !children.includes(key) && !key.startsWith('x-kubedag-')),
  );
  if (node.items !== undefined) {
    const items = structuralNode(node.items);
    if (items === undefined) return undefined;
    out.items = items;
  }
  Object.assign(out, structuralProperties(node));
  if (node[KEEP_UNKNOWN] === true) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (Array.isArray(node.required) && node.required.length > 0) out.required = node.required;
  // Structural schemas need a type on every node; TypeBox enums carry none.
  if (Array.isArray(node.enum) && out.type === undefined)
    out.type = typeof node.enum[0] === 'number' ? 'integer' : typeof node.enum[0];
  if (out.type === undefined && node.properties !== undefined) out.type = 'object';
  return out;
}

/**
 * Polymorphic nodes, and nodes without a type (Type.Unknown, and the snake_case twins of
 * kubernetes keys, whose marker is no CRD keyword), are left out; the parent keeps such keys
 * as written.
 */
function leftOut(node: Record<string, unknown>): boolean {
  return (
    Array.isArray(node.anyOf) ||
    typeof node.$ref === 'string' ||
    Object.keys(node).every((k) => k === 'description' || k.startsWith('x-kubedag-'))
  );
}

/** `properties` and map values, with the preserve marker where a polymorphic one was left out. */
function structuralProperties(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (node.properties !== undefined) {
    const properties: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(node.properties as object)) {
      const converted = structuralNode(child);
      if (converted === undefined) out['x-kubernetes-preserve-unknown-fields'] = true;
      else properties[name] = converted;
    }
    // An empty map is dropped by the API server, so the CRD would not be stored as written
    // (and Helm's server-side apply would conflict with whoever created it).
    if (Object.keys(properties).length > 0) out.properties = properties;
  }
  if (node.patternProperties !== undefined) {
    const values = structuralNode(Object.values(node.patternProperties as object)[0]);
    if (values === undefined) out['x-kubernetes-preserve-unknown-fields'] = true;
    else out.additionalProperties = values;
  }
  return out;
}
