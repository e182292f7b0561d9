/** `make manifests`: writes manifests/kubedag.yaml from the Helm chart (render-manifests.ts). */
import { writeFile } from 'node:fs/promises';
import { ensureBinaries } from '../cluster/binaries.ts';
import { MANIFEST, renderManifests } from './render-manifests.ts';

const binaries = await ensureBinaries();
await writeFile(MANIFEST, await renderManifests(binaries.helm));
console.log('wrote manifests/kubedag.yaml');
