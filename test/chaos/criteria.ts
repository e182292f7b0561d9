/**
 * What each chaos run must show, in one place for the integration test and `make chaos`: the
 * batch's problems (wrong ends, attempts started twice or too often, stuck runs) and what the
 * fault itself must have led to. Each unmet criterion is a sentence. Pure.
 */
import type { FaultFigures } from './control-plane.ts';
import { DOOMED_NODE, type NodeLossFigures } from './node-loss.ts';
import type { OperatorKillFigures } from './operator-kills.ts';

export function killCriteria(figures: OperatorKillFigures): string[] {
  return [
    ...figures.problems,
    ...(figures.takeoverMs.length === figures.kills
      ? []
      : [`${String(figures.takeoverMs.length)} takeovers for ${String(figures.kills)} kills`]),
  ];
}

export function faultCriteria(figures: FaultFigures): string[] {
  const leaders =
    figures.leaders === 1 ? [] : [`${String(figures.leaders)} replicas lead after the ${figures.fault} fault, not 1`];
  // Paused for longer than the Lease, the leader could not renew it: it must have stepped down
  // and the standby taken over, not carried on past a Lease another may have taken.
  const handover =
    figures.fault === 'etcd' && figures.sameLeader
      ? ['the leader kept leading through an etcd pause longer than its Lease']
      : [];
  return [...figures.problems, ...leaders, ...handover];
}

export function nodeCriteria(figures: NodeLossFigures): string[] {
  const want = figures.variant === 'restarted' ? /^exit code 137$/ : /lost with its node$/;
  const error = want.test(figures.error)
    ? []
    : [`the step without retries failed with "${figures.error}", not ${String(want)}`];
  const elsewhere =
    figures.variant === 'lost' && figures.retryNode === DOOMED_NODE
      ? [`the retry ran on the lost node ${DOOMED_NODE}`]
      : [];
  const retried = figures.retryNode === 'none' ? ['the step with retries never ran its second attempt'] : [];
  return [...figures.problems, ...error, ...elsewhere, ...retried];
}
