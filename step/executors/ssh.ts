/** The ssh executor: built on its own branch (wt-mailssh); this placeholder refuses clearly. */
import { SettingError } from '../settings.ts';

export function runSsh(): Promise<number> {
  return Promise.reject(new SettingError('the ssh executor is not built yet in this version of kubedag-step'));
}
