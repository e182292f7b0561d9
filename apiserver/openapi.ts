/**
 * The OpenAPI document as the server serves it, without a cluster or a port: the routes are
 * registered and described the same way, only never called. `make generate` writes it for the
 * web UI, whose API client is typed from it.
 */
import { buildApp } from './app.ts';
import { documentFor, type ApiVersion } from './documents.ts';

export async function openApiDocument(version: string, api: ApiVersion = 'v2'): Promise<Record<string, unknown>> {
  // A fixed clock and health: neither appears in the document, and the generated file must
  // not change from one run to the next.
  const app = buildApp({ version, clock: () => new Date(0), health: () => Promise.resolve(undefined) });
  await app.ready();
  const document = documentFor(app.swagger() as unknown as Record<string, unknown>, api);
  await app.close();
  return document;
}
