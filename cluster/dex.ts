/**
 * Dex, the OpenID Connect provider the sign-in tests start on loopback, built from its Go module
 * (cluster/tools/dex: go.mod and go.sum pin github.com/dexidp/dex; tools.go names cmd/dex) into
 * the per-user cache like the control plane (go-tool.ts). Dex publishes no Go module versions
 * after v2.13 (its tags lack the /v2 module path), so the pin is a commit's pseudo-version. Built
 * with cgo for its SQLite storage, which the tests use (test/dex.ts; its comment says why a
 * refresh grant needs Dex's sessions on, with SQLite and memory storage alike).
 */
import { ensureGoTool } from './go-tool.ts';

/** The dex binary, built into the cache when missing (minutes the first time). */
export function ensureDex(env: NodeJS.ProcessEnv = process.env, log?: (line: string) => void): Promise<string> {
  return ensureGoTool(
    {
      folder: 'dex',
      name: 'dex',
      title: 'Dex (OpenID Connect provider)',
      pkg: 'github.com/dexidp/dex/cmd/dex',
      cgo: true,
    },
    env,
    log,
  );
}
