/** The operator's leader as the API shows it (/services, health, metrics). Pure. */
import type { V1Lease } from '@kubernetes/client-node';
import { iso } from './format.ts';

export interface LeaderView {
  readonly instanceId: string;
  readonly host: string;
  readonly status: 'active' | 'inactive' | 'unknown';
  readonly startedAt: string;
}

/** The operator's leader as its Lease shows it: active while the Lease is current. */
export function leaderOf(lease: V1Lease | undefined, now: Date): LeaderView | undefined {
  const spec = lease?.spec;
  const holder = spec?.holderIdentity;
  if (spec === undefined || holder === undefined || holder === '') return undefined;
  const renewed = spec.renewTime === undefined ? NaN : new Date(spec.renewTime).getTime();
  const fresh = Number.isFinite(renewed) && now.getTime() - renewed <= (spec.leaseDurationSeconds ?? 15) * 1000;
  // Identities are `host_pid` (operator/operator.ts).
  const host = holder.includes('_') ? holder.slice(0, holder.lastIndexOf('_')) : holder;
  return { instanceId: holder, host, status: fresh ? 'active' : 'inactive', startedAt: iso(spec.acquireTime) };
}
