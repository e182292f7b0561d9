/**
 * What an ssh step actually sends: the user's command inside a small POSIX shell wrapper that
 * ties the remote command to the session, so that a stop, or a step runner that dies, ends it
 * for every remote user. Pure; docs/decisions/2026-11-28-ssh-stop.md says why it is built so.
 *
 * Why a wrapper: OpenSSH refuses "signal" requests in sessions without privilege separation,
 * which is every root login ("session signalling requires privilege separation"), and closing
 * a channel without a pty leaves its command running. The wrapper keeps the session's stdin as
 * a lifeline that the client holds open and never writes after the script: when it ends (the
 * client stops the step on purpose, or its connection is gone), a watcher sends the stop signal
 * to the session's process group, and SIGKILL after the grace period.
 *
 * The wrapper runs in the login shell, which is what interprets the exec request anyway; the
 * command is then `eval`ed in that same shell, so it sees the directory, environment, startup
 * files, `$0` and `$$` it saw without the wrapper. That needs a POSIX-family login shell (sh,
 * bash, dash, ksh, zsh, busybox ash), as Dagu's own steps assume.
 */
import type { RemoteWork } from './ssh-settings.ts';

/** What a stop sends the remote command, and how long it has before SIGKILL. */
export interface RemoteStop {
  /** A signal name, with or without `SIG` (signalOnStop). */
  readonly signal: string;
  readonly graceMs: number;
}

/** The exec request and the bytes sent on its stdin, which is then kept open. */
export interface WrappedWork {
  readonly command: string;
  readonly stdin: string;
}

export const DEFAULT_STOP: RemoteStop = { signal: 'SIGTERM', graceMs: 5_000 };

export function wrapRemote(work: RemoteWork, stop: RemoteStop): WrappedWork {
  const name = stop.signal.trim().toUpperCase().replace(/^SIG/, '');
  const signal = /^[A-Z][A-Z0-9+-]*$/.test(name) ? name : 'TERM';
  const grace = Math.max(1, Math.ceil(stop.graceMs / 1000));
  const script = work.stdin;
  const lines = [
    // Names no command is likely to use; they are unset before the command runs.
    `__kd_c=${singleQuoted(work.command)}`,
    ...(script === undefined ? [] : payloadLines(Buffer.byteLength(script))),
    // The watcher is started from a subshell that exits at once, so that it is no job of the
    // login shell: a command's own `wait` would otherwise wait for it too. `$$` is the login
    // shell, which sshd made the leader of a new session and process group with setsid(2); so
    // no setsid(1) is needed on the host. The watcher ignores the signal it sends its own group
    // and holds none of the session's output, which would keep the channel from closing.
    `( exec 3<&0; ( trap "" ${signal}; cat <&3 >/dev/null; ${leaderGone}; ${toGroup(signal)}; sleep ${String(grace)}; ${toGroup('KILL')} ) >/dev/null 2>&1 & )`,
    // The command must not read the lifeline: without a script it had an empty stdin before.
    'exec </dev/null',
    script === undefined ? 'eval "unset __kd_c; $__kd_c"' : 'printf %s "$__kd_p" | eval "unset __kd_c __kd_p; $__kd_c"',
  ];
  return { command: lines.join('\n'), stdin: script ?? '' };
}

/**
 * The script, read off stdin byte for byte (dd with bs=1 never reads past it; head -c may,
 * on busybox). The "." keeps trailing newlines from the command substitution; a script cut
 * short by a lost connection runs nothing.
 */
function payloadLines(bytes: number): string[] {
  return [
    `__kd_p=$(dd bs=1 count=${String(bytes)} 2>/dev/null; echo .); __kd_p=\${__kd_p%.}`,
    `[ "$(( $(printf %s "$__kd_p" | wc -c) ))" = ${String(bytes)} ] || { echo "kubedag: the script arrived cut short" >&2; exit 255; }`,
  ];
}

/**
 * stdin ended after the login shell exited: sshd closes the session's stdin once it has reaped
 * the command, so this is a command that finished by itself, and what it left running in the
 * background (a `nohup` daemon) stays, as it would without the wrapper.
 */
const leaderGone = 'kill -0 $$ 2>/dev/null || exit 0';

/**
 * The whole process group: what the command started goes with it. dash wants `--` before a
 * negative pid (and fails on `-PID` before sending anything); busybox signals the group at
 * `-- -PID` but then fails on `--`, so `-PID` comes first, lest the command get the signal
 * twice. Where the session is not its own group (a server without setsid), only the login
 * shell is left to signal.
 */
function toGroup(signal: string): string {
  return `{ kill -s ${signal} -$$ || kill -s ${signal} -- -$$ || kill -s ${signal} $$; }`;
}

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
