/**
 * Builds Dex (cluster/dex.ts) into the cache when missing, so that `make integration` on a
 * fresh machine has the OpenID Connect provider its sign-in tests start.
 */
import { ensureDex } from '../cluster/dex.ts';

process.stdout.write(`${await ensureDex()}\n`);
