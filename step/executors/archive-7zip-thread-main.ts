/**
 * The entry of a 7-Zip worker thread (archive-7zip.ts starts it), from the sources and, bundled
 * on its own, beside the step runner's bundle (build/step-bundle.ts): it answers 7-Zip commands.
 */
import { answerSevenZipJobs } from './archive-7zip-thread.ts';

answerSevenZipJobs();
