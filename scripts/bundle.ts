/** `node scripts/bundle.ts [file]`: writes the operator bundle (operator-bundle.ts), by default where the image keeps it. */
import { join } from 'node:path';
import { bundleOperator, OPERATOR_BUNDLE } from './bundles.ts';

const file = process.argv[2] ?? join(import.meta.dirname, '..', OPERATOR_BUNDLE);
await bundleOperator(file);
console.log(`wrote ${file}`);
