/** The web UI's entry: the API client and session, the query cache, the router. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { apiClient } from './api/client.ts';
import { ApiProvider } from './api/context.tsx';
import { discoverOidc } from './api/oidc.ts';
import { configureQueries } from './api/queries.ts';
import { Session } from './api/session.ts';
import { applyTheme, storedTheme } from './app/theme.ts';
import { createRouter } from './router.tsx';
import './styles/tokens.css';
import './styles/base.css';
import './styles/shell.css';
import './styles/controls.css';
import './styles/table.css';

// Before the first render, so that a page never flashes in the other theme.
applyTheme(storedTheme(localStorage), document.documentElement);

const session = new Session(sessionStorage);
const client = apiClient(session, window.location.origin);
const queries = configureQueries(new QueryClient());
const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');

// Rendered after GET /auth/me: the first queries must carry the session cookie when there is one.
void discoverOidc(session).finally(() => {
  createRoot(root).render(
    <StrictMode>
      <ApiProvider client={client} session={session}>
        <QueryClientProvider client={queries}>
          <RouterProvider router={createRouter()} />
        </QueryClientProvider>
      </ApiProvider>
    </StrictMode>,
  );
});
