import { describe, expect, it } from 'vitest';
import { endingReport, lastMeaningfulLine } from './dev-report.ts';

describe('the log line that says why a component ended', () => {
  const cases: { name: string; tail: string; want: string | undefined }[] = [
    { name: 'an empty log has none', tail: '\n\n', want: undefined },
    {
      name: 'a log without trouble gives its last line',
      tail: '[10:00:00.000] INFO: started\n[10:00:01.000] INFO: leading: starting informers\n',
      want: '[10:00:01.000] INFO: leading: starting informers',
    },
    {
      name: 'a pretty fatal line wins over the fields pino-pretty writes after it',
      tail: '[10:00:00.000] INFO: started\n[10:00:01.000] FATAL: cannot start: cannot listen on port 8081: it is already in use\n    component: "operator"\n',
      want: '[10:00:01.000] FATAL: cannot start: cannot listen on port 8081: it is already in use',
    },
    {
      name: 'the fields pino-pretty writes under a message are passed over for the message',
      tail: '[10:00:00.000] INFO: informer runs synced\n    component: "operator"\n    informer: "runs"\n',
      want: '[10:00:00.000] INFO: informer runs synced',
    },
    {
      name: 'colour codes are taken out',
      tail: '\u001b[31mERROR\u001b[39m: reconcile failed\n',
      want: 'ERROR: reconcile failed',
    },
    {
      name: "a JSON error line is found by pino's level",
      tail: '{"level":30,"msg":"ok"}\n{"level":50,"msg":"watch failed"}\n{"level":30,"msg":"later"}\n',
      want: '{"level":50,"msg":"watch failed"}',
    },
    {
      name: "klog's error line is found by its E prefix",
      tail: 'I1124 10:00:00.000000 1 server.go:1] serving\nE1124 10:00:01.000000 1 run.go:72] "command failed" err="etcd unreachable"\nI1124 10:00:02.000000 1 x.go:1] bye\n',
      want: 'E1124 10:00:01.000000 1 run.go:72] "command failed" err="etcd unreachable"',
    },
    {
      name: "Node's uncaught error gives the error line, not its stack or the version trailer",
      tail: 'file:///x/main.ts:3\n  throw new Error("boom");\n        ^\n\nError: boom\n    at main.ts:3:9\n    at ModuleJob.run (node:internal)\n\nNode.js v24.21.0\n',
      want: 'Error: boom',
    },
    {
      name: 'a very long line is cut to 240 characters',
      tail: `ERROR: ${'x'.repeat(400)}\n`,
      want: `ERROR: ${'x'.repeat(230)}...`,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(lastMeaningfulLine(c.tail)).toBe(c.want);
    });
  }
});

describe('the one line about a component that ended', () => {
  const cases: { name: string; ending: Parameters<typeof endingReport>[0]; want: string }[] = [
    {
      name: 'an exit code, the last line and the log path',
      ending: { name: 'operator', code: 1, signal: null, log: '/s/operator.log', lastLine: 'FATAL: cannot start' },
      want: 'operator exited with code 1; last log line: "FATAL: cannot start" (log: /s/operator.log)',
    },
    {
      name: 'a signal rather than a code when one killed it',
      ending: {
        name: 'kube-apiserver',
        code: null,
        signal: 'SIGKILL',
        log: '/s/cluster/logs/kube-apiserver.log',
        lastLine: 'I1124 serving',
      },
      want: 'kube-apiserver was killed by SIGKILL; last log line: "I1124 serving" (log: /s/cluster/logs/kube-apiserver.log)',
    },
    {
      name: 'the restart to come, with its number and wait in whole seconds',
      ending: {
        name: 'operator',
        code: 1,
        signal: null,
        log: '/s/operator.log',
        lastLine: 'FATAL: lost leadership',
        restart: { count: 2, delayMs: 2000 },
      },
      want: 'operator exited with code 1; last log line: "FATAL: lost leadership" (log: /s/operator.log); restart 2 in 2 s',
    },
    {
      name: 'neither when this run did not start it, and an empty log said so',
      ending: { name: 'etcd', code: null, signal: null, log: '/s/cluster/logs/etcd.log' },
      want: 'etcd is not running any more; its log is empty (log: /s/cluster/logs/etcd.log)',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(endingReport(c.ending)).toBe(c.want);
    });
  }
});
