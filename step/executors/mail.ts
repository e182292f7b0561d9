/** The mail executor: built on its own branch (wt-mailssh); this placeholder refuses clearly. */
import { SettingError } from '../settings.ts';

export function runMail(): Promise<number> {
  return Promise.reject(new SettingError('the mail executor is not built yet in this version of kubedag-step'));
}
