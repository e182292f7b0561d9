/** Every page has its own URL, so each is a deep link the API server answers with the app. */
import type { ReactNode } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { Layout } from './app/Layout.tsx';
import { SECTIONS } from './app/nav.ts';
import { NotFound, RouteError, SectionPlaceholder } from './app/pages.tsx';
import { DagPage } from './pages/dag/DagPage.tsx';
import { DagListPage } from './pages/dags/DagListPage.tsx';
import { DashboardPage } from './pages/dashboard/DashboardPage.tsx';
import { QueuesPage } from './pages/queues/QueuesPage.tsx';
import { RunsPage } from './pages/runs/RunsPage.tsx';
import { SearchPage } from './pages/search/SearchPage.tsx';
import { SystemPage } from './pages/system/SystemPage.tsx';
import { WorkersPage } from './pages/workers/WorkersPage.tsx';
import { runRoutes } from './pages/run/routes.tsx';

/** Built pages by path; the other sections get their placeholder. */
const BUILT: Readonly<Record<string, () => ReactNode>> = {
  '/': () => <DashboardPage />,
  '/dags': () => <DagListPage />,
  '/runs': () => <RunsPage />,
  '/queues': () => <QueuesPage />,
  '/workers': () => <WorkersPage />,
  '/system': () => <SystemPage />,
  '/search': () => <SearchPage />,
};

const sections: RouteObject[] = SECTIONS.map((section) => {
  const page = BUILT[section.path];
  const element = page === undefined ? <SectionPlaceholder section={section} /> : page();
  return section.path === '/' ? { index: true, element } : { path: section.path.slice(1), element };
});

export const routes: RouteObject[] = [
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      ...sections,
      { path: 'dags/:fileName/:tab?', element: <DagPage /> },
      ...runRoutes,
      { path: '*', element: <NotFound /> },
    ],
  },
];

export const createRouter = (): ReturnType<typeof createBrowserRouter> => createBrowserRouter(routes);
