/**
 * The frame around every page: the navigation (a sidebar on wide screens, a drawer behind a
 * menu button on narrow ones), the theme switch, signing out, and the page itself, or the
 * sign-in form while the API wants credentials.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useSession } from '../api/context.tsx';
import { Icon } from '../components/Icon.tsx';
import { SECTIONS } from './nav.ts';
import { SignIn } from './SignIn.tsx';
import { oidcSignOut } from '../api/oidc.ts';
import { ThemeToggle } from './ThemeToggle.tsx';

function Brand(): ReactNode {
  return (
    <NavLink to="/" className="brand" aria-label="Kubedag home">
      <svg className="brand-mark" viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="7" />
        <path d="M10 10.5h6.5M10 10.5v11M10 21.5h6.5M16.5 10.5 22 16M16.5 21.5 22 16" />
        <circle cx="10" cy="10.5" r="2.6" />
        <circle cx="10" cy="21.5" r="2.6" />
        <circle cx="22" cy="16" r="2.6" />
      </svg>
      <span className="brand-name">Kubedag</span>
    </NavLink>
  );
}

function Navigation({ onFollow }: { readonly onFollow: () => void }): ReactNode {
  return (
    <nav className="nav" aria-label="Main" onClick={onFollow}>
      <ul>
        {SECTIONS.map((section) => (
          <li key={section.path}>
            <NavLink to={section.path} end={section.path === '/'} className="nav-link">
              <Icon name={section.icon} />
              <span className="nav-label">{section.label}</span>
              {section.built ? null : (
                <span className="nav-soon" title="Not built yet">
                  soon
                </span>
              )}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Who is signed in: the first letter as a badge, then the name, cut with an ellipsis when long (the title holds it all). */
function SignedInAs({ who }: { readonly who: string }): ReactNode {
  return (
    <div className="session-user" data-testid="signed-in-user" title={`Signed in as ${who}`}>
      <span className="session-avatar" aria-hidden="true">
        {who.slice(0, 1).toUpperCase()}
      </span>
      <span className="session-who">
        <span className="session-label">Signed in as</span>
        <span className="session-name">{who}</span>
      </span>
    </div>
  );
}

function SessionControls(): ReactNode {
  const { session, state } = useSession();
  const queries = useQueryClient();
  const oidcUser = state.oidc?.user;
  if (oidcUser !== undefined && state.credentials === undefined) {
    return (
      <>
        <SignedInAs who={oidcUser.user} />
        <button type="button" className="button button-quiet" onClick={() => void oidcSignOut()}>
          <Icon name="signOut" />
          <span>Sign out</span>
        </button>
      </>
    );
  }
  if (state.credentials === undefined) return null;
  const who = state.credentials.kind === 'basic' ? state.credentials.username : 'an API token';
  // Whatever was read with the credentials goes with them: every query starts again, without.
  const signOut = (): void => {
    session.signOut();
    void queries.resetQueries();
  };
  return (
    <>
      <SignedInAs who={who} />
      <button type="button" className="button button-quiet" onClick={signOut}>
        <Icon name="signOut" />
        <span>Sign out</span>
      </button>
    </>
  );
}

export function Layout(): ReactNode {
  const { state } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  return (
    <div className="shell" data-menu-open={menuOpen}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="button button-quiet menu-button"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => {
            setMenuOpen(!menuOpen);
          }}
        >
          <Icon name={menuOpen ? 'close' : 'menu'} label={menuOpen ? 'Close menu' : 'Open menu'} />
        </button>
        <Brand />
      </header>
      <aside className="sidebar" id="sidebar">
        <div className="sidebar-brand">
          <Brand />
        </div>
        {/* Following a link in the drawer closes it (on wide screens the flag has no effect). */}
        <Navigation
          onFollow={() => {
            setMenuOpen(false);
          }}
        />
        <div className="sidebar-foot">
          <ThemeToggle />
          <SessionControls />
          <a className="sidebar-api" href="/api/v2/openapi.json">
            API: /api/v2
          </a>
        </div>
      </aside>
      <div
        className="scrim"
        aria-hidden="true"
        onClick={() => {
          setMenuOpen(false);
        }}
      />
      <main className="main" id="main" tabIndex={-1}>
        {state.signInRequired ? <SignIn /> : <Outlet />}
      </main>
    </div>
  );
}
