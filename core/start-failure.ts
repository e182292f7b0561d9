/**
 * Why a program could not start, as one line for the person who started it. A port that is
 * taken (another Kubedag, a second `make dev`) or forbidden names the setting that moves it,
 * rather than ending in an unhandled EADDRINUSE and its stack trace.
 */
import { errorMessage } from './log.ts';

export interface PortSetting {
  readonly port: number;
  /** How a person chooses another, e.g. `--http-port or KUBEDAG_HTTP_PORT`. */
  readonly setting: string;
}

export function startFailure(error: unknown, listen: PortSetting): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const port = String(listen.port);
  if (code === 'EADDRINUSE')
    return `cannot listen on port ${port}: it is already in use (by another program or another Kubedag); choose another with ${listen.setting}`;
  if (code === 'EACCES')
    return `cannot listen on port ${port}: permission denied (ports below 1024 need privileges); choose another with ${listen.setting}`;
  if (code === 'EADDRNOTAVAIL')
    return `cannot listen on port ${port}: the address is not one of this machine's; ${errorMessage(error)}`;
  return errorMessage(error);
}

/**
 * Logs the failure as one fatal line and ends the program once the line is written; the
 * promise never settles, so that nothing after an `await` of it runs meanwhile.
 */
export function exitWith(
  log: { fatal: (message: string) => void; flush: (done?: (error?: Error) => void) => void },
  message: string,
): Promise<never> {
  log.fatal(message);
  log.flush(() => {
    process.exit(1);
  });
  return new Promise<never>(() => undefined);
}
