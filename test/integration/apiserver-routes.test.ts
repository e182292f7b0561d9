/**
 * Every endpoint's error paths and edge cases through the real API server on the real
 * kube-apiserver. No operator runs here: where a case needs a run in some state, the test
 * writes that status through the status subresource, as the operator would.
 *
 * The suites live in apiserver-routes/ and share one namespace and API server (stack.ts). They
 * run in this order, and the order matters: the run suites leave runs the listings count.
 */
import { describeListings } from './apiserver-routes/listings.suite.ts';
import { describeRecreatedDags, describeRequestChecks } from './apiserver-routes/requests.suite.ts';
import { describeRunOperations, describeStartingRuns } from './apiserver-routes/runs.suite.ts';
import { withRoutesStack } from './apiserver-routes/stack.ts';

/** The DAGs the suites share: a two-step one, and one with a limit on active runs. */
const stack = withRoutesStack('kd-routes', async ({ api }) => {
  await api.call('POST', '/api/v2/dags', {
    name: 'etl',
    spec: 'steps:\n  - {name: extract, command: echo e}\n  - {name: load, command: echo l}\n',
  });
  await api.call('POST', '/api/v2/dags', { name: 'many', spec: 'maxActiveRuns: 2\nqueue: shared\nsteps: [echo]\n' });
});

describeRequestChecks(stack);
describeStartingRuns(stack);
describeRunOperations(stack);
describeListings(stack);
describeRecreatedDags(stack);
