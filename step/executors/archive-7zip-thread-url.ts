/**
 * The module a 7-Zip worker thread starts from: archive-7zip-thread-main.ts beside this file.
 * The step runner's bundle (build/step-bundle.ts) replaces this module with one that names the
 * thread's own small bundle beside the runner's, so the thread loads 7-Zip and nothing else.
 */
export function sevenZipThreadUrl(): URL {
  return new URL('./archive-7zip-thread-main.ts', import.meta.url);
}
