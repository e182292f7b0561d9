/**
 * The entry of a 7-Zip worker thread when the step runner runs from its sources (tests, `node
 * step/main.ts`). The bundle has no file of its own for it: there the thread runs the bundle,
 * whose step/main.ts answers the commands (image/step-bundle.ts replaces archive-7zip-thread-url.ts).
 */
import { answerSevenZipJobs } from './archive-7zip-thread.ts';

answerSevenZipJobs();
