import { configDefaults, defineConfig } from 'vitest/config';

/** Where the tests of modules live, beside them. */
const UNIT_FILES = [
  'core/**/*.test.ts',
  'cli/**/*.test.ts',
  'operator/**/*.test.ts',
  'apiserver/**/*.test.ts',
  'step/**/*.test.ts',
  'cluster/**/*.test.ts',
  'ui/**/*.test.ts',
  'image/**/*.test.ts',
  'build/**/*.test.ts',
  'scripts/**/*.test.ts',
];
const LOOPBACK_FILES = '**/*.loopback.test.ts';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: UNIT_FILES,
          exclude: [...configDefaults.exclude, LOOPBACK_FILES],
          // Unit tests are pure and fast; a slow one is a bug worth seeing, not a reason to wait.
          testTimeout: 20_000,
          // Hooks get the same budget: building both OpenAPI documents (links.test.ts) takes
          // about 4 s on an idle 2-core machine, beyond vitest's default 10 s under full load.
          hookTimeout: 20_000,
        },
      },
      {
        test: {
          // Tests of one module against real servers they start on loopback (sshd, SMTP,
          // PostgreSQL, an OTLP collector, HTTP servers of their own): named *.loopback.test.ts.
          name: 'loopback',
          include: UNIT_FILES.map((glob) => glob.replace(/\*\.test\.ts$/, '*.loopback.test.ts')),
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          // One cluster on two cores: files run one after another, tests wait on real Pods.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      // A real node (kubelet, containerd, runc) on a cluster of its own in a network namespace:
      // needs root; only when KUBEDAG_REAL_NODE_TESTS=1 (make test-real-node), so that a plain
      // `vitest run` never starts one.
      ...(process.env.KUBEDAG_REAL_NODE_TESTS === '1'
        ? [
            {
              test: {
                name: 'real-node',
                include: ['test/real-node/**/*.test.ts'],
                globalSetup: ['test/real-node/global-setup.ts'],
                fileParallelism: false,
                testTimeout: 120_000,
                hookTimeout: 600_000,
              },
            },
          ]
        : []),
      // Against a cluster with the chart installed from `make image` (make kind-e2e): only
      // when KUBEDAG_E2E_KUBECONFIG names one, so that a plain `vitest run` never reaches for it.
      ...(process.env.KUBEDAG_E2E_KUBECONFIG === undefined
        ? []
        : [
            {
              test: {
                name: 'e2e',
                include: ['test/e2e/**/*.test.ts'],
                globalSetup: ['test/e2e/global-setup.ts'],
                fileParallelism: false,
                testTimeout: 300_000,
                hookTimeout: 120_000,
              },
            },
          ]),
    ],
  },
});
