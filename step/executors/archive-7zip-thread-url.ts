/**
 * The module a 7-Zip worker thread starts from: archive-7zip-thread-main.ts beside this file.
 * The step runner's bundle (image/step-bundle.ts) replaces this module with one that names the
 * bundle itself, which answers 7-Zip commands when it finds itself in such a thread (step/main.ts).
 */
export function sevenZipThreadUrl(): URL {
  return new URL('./archive-7zip-thread-main.ts', import.meta.url);
}
