import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts'],
    // Unit tests are pure and fast; a slow one is a bug worth seeing, not a reason to wait.
    testTimeout: 20_000,
  },
});
