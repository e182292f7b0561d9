/** `node scripts/bundle.ts [dir]`: writes the operator and API server bundles (build/bundles.ts), by default where the image keeps them. */
import { basename, join } from 'node:path';
import { API_SERVER_BUNDLE, bundleApiServer, bundleOperator, OPERATOR_BUNDLE } from '../build/bundles.ts';

const dir = process.argv[2] ?? join(import.meta.dirname, '..', 'dist');
for (const [write, name] of [
  [bundleOperator, OPERATOR_BUNDLE],
  [bundleApiServer, API_SERVER_BUNDLE],
] as const) {
  const file = join(dir, basename(name));
  await write(file);
  console.log(`wrote ${file}`);
}
