/**
 * The accessibility scan of the web UI's browser tests: axe-core (through @axe-core/playwright)
 * over the page as it is now, with its WCAG 2.x A and AA rules and its best practices; what it
 * finds at the serious or critical level is a failure, one readable line per rule.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

const FAILING = new Set(['serious', 'critical']);

/** Serious and critical violations on the page, as `rule (impact): help [targets]`; [] when none. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => FAILING.has(v.impact ?? ''))
    .map((v) => `${v.id} (${v.impact ?? ''}): ${v.help} [${v.nodes.map((n) => n.target.join(' ')).join(', ')}]`);
}
