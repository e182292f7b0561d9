/** The API client and the session, handed to every component through React context. */
import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { ApiClient } from './client.ts';
import type { Session, SessionState } from './session.ts';

interface Api {
  readonly client: ApiClient;
  readonly session: Session;
}

const ApiContext = createContext<Api | undefined>(undefined);

export function ApiProvider({ client, session, children }: Api & { readonly children: ReactNode }): ReactNode {
  return <ApiContext value={{ client, session }}>{children}</ApiContext>;
}

function useApiContext(): Api {
  const api = useContext(ApiContext);
  if (api === undefined) throw new Error('useApi outside ApiProvider');
  return api;
}

export function useApi(): ApiClient {
  return useApiContext().client;
}

export function useSession(): { readonly session: Session; readonly state: SessionState } {
  const { session } = useApiContext();
  const state = useSyncExternalStore(session.subscribe, session.snapshot);
  return { session, state };
}
