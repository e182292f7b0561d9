import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.ts';

describe('operator configuration', () => {
  const cases: { name: string; argv: string[]; env: Record<string, string>; want: Record<string, unknown> }[] = [
    {
      name: 'defaults apply when nothing is given',
      argv: [],
      env: {},
      want: {
        namespaces: [],
        workers: 8,
        maxPodsPerRun: 256,
        maxPods: 0,
        routineEvents: false,
        httpPort: 8081,
        scheduleZone: 'UTC',
      },
    },
    {
      name: 'steps default to busybox, a 1Gi ReadWriteOnce workspace of the default class and restricted security as uid 1000',
      argv: [],
      env: {},
      want: {
        steps: {
          image: 'busybox:1.36',
          runnerImage: 'ghcr.io/kubedag/kubedag:0.1.0',
          execRole: 'kubedag-step-exec',
          workspace: { enabled: true, storageClassName: '', size: '1Gi', accessMode: 'ReadWriteOnce' },
          security: 'restricted',
          user: 1000,
        },
      },
    },
    {
      name: 'the step defaults are set by flags',
      argv: [
        '--default-step-image=alpine:3',
        '--workspace=false',
        '--workspace-storage-class=fast',
        '--workspace-size=20Gi',
        '--workspace-access-mode=ReadWriteMany',
        '--step-security=none',
        '--step-user=2000',
      ],
      env: {},
      want: {
        steps: {
          image: 'alpine:3',
          workspace: { enabled: false, storageClassName: 'fast', size: '20Gi', accessMode: 'ReadWriteMany' },
          security: 'none',
          user: 2000,
        },
      },
    },
    {
      name: 'the runner image is set by flag',
      argv: ['--runner-image=registry.example.com/kubedag:1.2'],
      env: {},
      want: { steps: { runnerImage: 'registry.example.com/kubedag:1.2' } },
    },
    {
      name: 'the role of exec steps is kubedag-step-exec unless a flag names another',
      argv: ['--step-exec-role=release-step-exec'],
      env: {},
      want: { steps: { execRole: 'release-step-exec' } },
    },
    {
      name: 'the runner image is set by variable',
      argv: [],
      env: { KUBEDAG_RUNNER_IMAGE: 'kubedag:dev' },
      want: { steps: { runnerImage: 'kubedag:dev' } },
    },
    {
      name: 'the workspace size is set by variable',
      argv: [],
      env: { KUBEDAG_WORKSPACE_SIZE: '500M' },
      want: { steps: { workspace: { size: '500M' } } },
    },
    {
      name: 'the schedule zone is set by flag or variable',
      argv: [],
      env: { KUBEDAG_SCHEDULE_ZONE: 'Asia/Tokyo' },
      want: { scheduleZone: 'Asia/Tokyo' },
    },
    {
      name: 'flags set values',
      argv: ['--max-pods=50', '--max-pods-per-run=4', '--routine-events=true', '--namespaces=a, b'],
      env: {},
      want: { maxPods: 50, maxPodsPerRun: 4, routineEvents: true, namespaces: ['a', 'b'] },
    },
    {
      name: 'KUBEDAG_ variables set values',
      argv: [],
      env: { KUBEDAG_MAX_PODS: '9', KUBEDAG_WORKERS: '3', KUBEDAG_ROUTINE_EVENTS: 'yes' },
      want: { maxPods: 9, workers: 3, routineEvents: true },
    },
    {
      name: 'a flag wins over its variable',
      argv: ['--max-pods=1'],
      env: { KUBEDAG_MAX_PODS: '9' },
      want: { maxPods: 1 },
    },
    { name: 'at least one worker runs', argv: ['--workers=0'], env: {}, want: { workers: 1 } },
    {
      name: 'a mail waits two minutes for missing logs unless a flag or variable says otherwise',
      argv: [],
      env: {},
      want: { mailLogWaitSeconds: 120 },
    },
    {
      name: 'the wait of a mail for missing logs is set by flag',
      argv: ['--mail-log-wait-seconds=5'],
      env: { KUBEDAG_MAIL_LOG_WAIT_SECONDS: '60' },
      want: { mailLogWaitSeconds: 5 },
    },
    {
      name: 'no history store and a one-hour archive window unless told otherwise',
      argv: [],
      env: {},
      want: { history: undefined, archiveAfterMs: 3_600_000 },
    },
    {
      name: 'the sqlite history store at its default path, archiving after a Go duration',
      argv: ['--history-store=sqlite', '--archive-after=1h30m'],
      env: {},
      want: { history: { kind: 'sqlite', path: '/var/lib/kubedag/history/history.db' }, archiveAfterMs: 5_400_000 },
    },
    {
      name: 'the postgres history store from its variable, archiving at once',
      argv: ['--history-store=postgres', '--archive-after=0s'],
      env: { KUBEDAG_HISTORY_POSTGRES_URL: 'postgres://u:p@db:5432/kd' },
      want: { history: { kind: 'postgres', url: 'postgres://u:p@db:5432/kd' }, archiveAfterMs: 0 },
    },
    {
      name: 'an empty value is no value: the variable or the default applies',
      argv: ['--lease-name=', '--default-step-image='],
      env: { KUBEDAG_LEASE_NAME: 'leader', KUBEDAG_SCHEDULE_ZONE: '', KUBEDAG_KUBECONFIG: '' },
      want: { leaseName: 'leader', scheduleZone: 'UTC', steps: { image: 'busybox:1.36' } },
    },
  ];
  it.each(cases)('$name', ({ argv, env, want }) => {
    expect(parseConfig(argv, env)).toMatchObject(want);
  });

  it.each([
    { name: 'a negative cap', argv: ['--max-pods=-1'], message: 'max-pods must be a non-negative integer, not "-1"' },
    {
      name: 'a fractional worker count',
      argv: ['--workers=1.5'],
      message: 'workers must be a non-negative integer, not "1.5"',
    },
    {
      name: 'a switch that is neither true nor false',
      argv: ['--routine-events=maybe'],
      message: 'routine-events must be true or false, not "maybe"',
    },
    {
      name: 'a workspace size that is not a quantity',
      argv: ['--workspace-size=lots'],
      message: 'workspace-size must be a Kubernetes quantity such as 1Gi, not "lots"',
    },
    {
      name: 'an unknown access mode',
      argv: ['--workspace-access-mode=ReadOnlyMany'],
      message: 'workspace-access-mode must be one of ReadWriteOnce, ReadWriteMany, not "ReadOnlyMany"',
    },
    {
      name: 'an unknown security level',
      argv: ['--step-security=baseline'],
      message: 'step-security must be one of restricted, none, not "baseline"',
    },
    {
      name: 'a negative archive window',
      argv: ['--archive-after=-1h'],
      message: 'archive-after must be a duration such as 1h, 30m or 0s, not "-1h"',
    },
    {
      name: 'an archive window that is no duration',
      argv: ['--archive-after=soon'],
      message: 'archive-after must be a duration such as 1h, 30m or 0s, not "soon"',
    },
    {
      name: 'the postgres history store without its URL',
      argv: ['--history-store=postgres'],
      message: 'KUBEDAG_HISTORY_POSTGRES_URL is required with history-store postgres',
    },
    {
      name: 'an unknown schedule zone',
      argv: ['--schedule-zone=Mars/Olympus'],
      message: 'schedule-zone: unknown time zone "Mars/Olympus"',
    },
  ])('refuses $name', ({ argv, message }) => {
    expect(() => parseConfig(argv, {})).toThrow(message);
  });
});
