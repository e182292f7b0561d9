/** `make step-runner` (`node scripts/step-runner.ts [cache]`): builds and installs kubedag-step for the local cluster, and prints its bin directory. */
import { defaultRunnerCache, ensureStepRunner } from '../cluster/step-runner.ts';

const runner = await ensureStepRunner(
  process.argv[2] ?? defaultRunnerCache(),
  (line) => void process.stderr.write(`${line}\n`),
);
console.log(runner.bin);
