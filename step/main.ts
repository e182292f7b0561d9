#!/usr/bin/env node
/**
 * kubedag-step: Kubedag's step runner. `kubedag-step executor` carries out the executor in
 * $KUBEDAG_EXECUTOR (an ExecutorSpec, core/runner/spec.ts) with the step's streams and
 * environment, and exits with the step's exit code; `kubedag-step telemetry` exports a finished
 * run's spans ($KUBEDAG_TELEMETRY, core/runner/telemetry.ts); `kubedag-step notify` sends a mail
 * about a run or a failed step ($KUBEDAG_NOTIFY, core/runner/notify.ts). The Pod's shell runner starts it, so
 * tagging, stop forwarding, preconditions and outputs work as for any command.
 *
 * A stop (SIGTERM, SIGINT, and for `executor` the step's signalOnStop from the spec, see
 * stop.ts) aborts the executor's work; the runner then exits as a process ended by that signal
 * would (128 + its number: 143, 130, 138 for SIGUSR1). Any error is one line on stderr and exit
 * status 1.
 */
import { EXECUTOR_ENV, type ExecutorSpec, type RunnerExecutor } from '../core/runner/spec.ts';
import { renderHelp } from '../core/settings-help.ts';
import { helpWanted } from '../core/settings.ts';
import { runContainerExec } from './executors/container-exec.ts';
import { runHttp } from './executors/http.ts';
import { runJq } from './executors/jq.ts';
import { runMail } from './executors/mail.ts';
import { runSsh } from './executors/ssh.ts';
import { runWait } from './executors/wait.ts';
import { runFile } from './executors/file.ts';
import { runArtifact } from './executors/artifact.ts';
import { runS3 } from './executors/s3.ts';
import { runArchive } from './executors/archive.ts';
import { runTemplate } from './executors/template.ts';
import { STEP_HELP, type StepCommand } from './help.ts';
import type { StepIO } from './io.ts';
import { runNotify } from './notify.ts';
import { runTelemetry } from './telemetry.ts';
import { parseExecutorSpec } from './spec.ts';
import { stopExitCode, stopSignals } from './stop.ts';

type Executor = (spec: ExecutorSpec, io: StepIO) => Promise<number>;

const EXECUTORS: Record<RunnerExecutor, Executor> = {
  http: runHttp,
  jq: runJq,
  mail: runMail,
  ssh: runSsh,
  'container-exec': (spec, io) => runContainerExec(spec, io),
  wait: (spec, io) => runWait(spec, io),
  file: runFile,
  s3: runS3,
  archive: runArchive,
  template: runTemplate,
  artifact: runArtifact,
};

const USAGE = `usage: ${STEP_HELP.usage}   (--help says more)`;

/** `stopOn`: more signals that stop the command, listened to from then on. */
type Command = (io: StepIO, stopOn: (signals: readonly NodeJS.Signals[]) => void) => Promise<number>;

const COMMANDS: Record<StepCommand, Command> = { executor: runExecutor, telemetry: runTelemetry, notify: runNotify };

async function runExecutor(io: StepIO, stopOn: (signals: readonly NodeJS.Signals[]) => void): Promise<number> {
  const spec = parseExecutorSpec(io.env[EXECUTOR_ENV]);
  // Before any work starts: a signalOnStop that arrived without a listener would kill the
  // runner outright (SIGHUP, SIGQUIT, SIGUSR2) or start Node's inspector (SIGUSR1: Node.js
  // starts it only while no listener is installed; checked on Node 24).
  stopOn(stopSignals(spec));
  return EXECUTORS[spec.type](spec, io);
}

async function main(argv: readonly string[]): Promise<number> {
  if (helpWanted(argv)) {
    process.stdout.write(renderHelp(STEP_HELP));
    return 0;
  }
  const command =
    argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) ? COMMANDS[argv[0] as StepCommand] : undefined;
  if (command === undefined || argv.length !== 1) {
    process.stderr.write(`kubedag-step: ${USAGE}\n`);
    return 2;
  }
  const stop = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const listened = new Set<NodeJS.Signals>();
  const stopOn = (signals: readonly NodeJS.Signals[]): void => {
    for (const signal of signals.filter((s) => !listened.has(s))) {
      listened.add(signal);
      process.on(signal, () => {
        stoppedBy ??= signal;
        stop.abort(new Error(`stopped by ${signal}`));
      });
    }
  };
  stopOn(stopSignals());
  const env = Object.fromEntries(Object.entries(process.env).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])));
  const io: StepIO = { stdout: process.stdout, stderr: process.stderr, env, cwd: process.cwd(), signal: stop.signal };
  try {
    const code = await command(io, stopOn);
    return stoppedBy === undefined ? code : stopExitCode(stoppedBy);
  } catch (error) {
    if (stoppedBy !== undefined) {
      process.stderr.write(`kubedag-step: ${stoppedBy === 'SIGINT' ? 'interrupted' : 'stopped'}\n`);
      return stopExitCode(stoppedBy);
    }
    process.stderr.write(`kubedag-step: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
}

// Writes to pipes and files are synchronous on Linux, so exiting here loses no output; an
// explicit exit also ends sockets or timers an aborted request may leave behind.
process.exit(await main(process.argv.slice(2)));
