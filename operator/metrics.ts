/** The operator's Prometheus metrics, one registry per operator (no global state). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly runsFinished = new Counter({
    name: 'kubedag_runs_finished_total',
    help: 'Runs that reached a final status.',
    labelNames: ['status'],
    registers: [this.registry],
  });
  readonly stepsStarted = new Counter({
    name: 'kubedag_steps_started_total',
    help: 'Step attempts started (Pods created).',
    registers: [this.registry],
  });
  readonly stepsFinished = new Counter({
    name: 'kubedag_steps_finished_total',
    help: 'Steps that reached a final status.',
    labelNames: ['status'],
    registers: [this.registry],
  });
  readonly reconcileSeconds = new Histogram({
    name: 'kubedag_reconcile_duration_seconds',
    help: 'Time of one reconcile of a run.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'kubedag_queue_depth',
    help: 'Runs waiting for or in a reconcile.',
    registers: [this.registry],
  });
  readonly stepGapSeconds = new Histogram({
    name: 'kubedag_step_gap_seconds',
    help: 'From the last upstream step finishing to the next step Pod being created.',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly runsArchived = new Counter({
    name: 'kubedag_runs_archived_total',
    help: 'Finished runs moved from etcd to the history store, by root or sub run.',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly historyPruned = new Counter({
    name: 'kubedag_history_runs_pruned_total',
    help: 'Archived runs deleted from the history store by retention (histRetentionDays).',
    registers: [this.registry],
  });
  readonly apiWrites = new Counter({
    name: 'kubedag_api_writes_total',
    help: 'Kubernetes API writes by verb.',
    labelNames: ['verb'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
