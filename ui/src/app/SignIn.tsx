/**
 * The sign-in form, shown in place of a page once the API answers 401. Either a token (sent as
 * Bearer: the server's static tokens, or a Kubernetes token in mode kubernetes) or a user name
 * and password (Basic). The credentials are tried on a read before they are kept.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode, type SubmitEvent } from 'react';
import { ApiFailure, data } from '../api/client.ts';
import { useApi, useSession } from '../api/context.tsx';
import { loginUrl } from '../api/oidc.ts';
import { authorization, type Credentials, type OidcState } from '../api/session.ts';

type Kind = Credentials['kind'];

function credentialsFrom(kind: Kind, form: FormData): Credentials {
  const text = (name: string): string => {
    const value = form.get(name);
    return typeof value === 'string' ? value : '';
  };
  return kind === 'token'
    ? { kind, token: text('token').trim() }
    : { kind, username: text('username'), password: text('password') };
}

/** The OpenID Connect provider's way in, first (saying why when a sign-in just ended), and the token or password form below it as the other way. */
function ProviderSignIn({
  provider,
  ended,
}: {
  readonly provider: OidcState['provider'];
  readonly ended: boolean;
}): ReactNode {
  return (
    <>
      {ended ? (
        <p className="form-problem" role="alert">
          Your sign-in with {provider.name} has ended: it expired, or you signed out elsewhere.
        </p>
      ) : null}
      {/* A full navigation, not fetch: the provider's login page takes over the tab. */}
      <a className="button button-primary sign-in-provider" href={loginUrl(provider.login)}>
        Sign in with {provider.name}
      </a>
      <p className="sign-in-or">
        <span>or</span>
      </p>
      <p className="muted">With an API token, or a user and password, kept in this tab only.</p>
    </>
  );
}

export function SignIn(): ReactNode {
  const client = useApi();
  const { session, state } = useSession();
  const queries = useQueryClient();
  const [kind, setKind] = useState<Kind>(state.credentials?.kind ?? 'token');
  const [problem, setProblem] = useState<string | undefined>(
    state.credentials === undefined ? undefined : 'The credentials you signed in with are no longer accepted.',
  );
  const [busy, setBusy] = useState(false);
  const { oidc } = state;

  const submit = async (event: SubmitEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const credentials = credentialsFrom(kind, new FormData(event.currentTarget));
    setBusy(true);
    try {
      await data(
        client.GET('/api/v2/dags', {
          params: { query: { perPage: 1 } },
          headers: { Authorization: authorization(credentials) },
        }),
      );
      session.signIn(credentials);
      await queries.resetQueries();
    } catch (error) {
      setProblem(
        error instanceof ApiFailure
          ? `${error.status === 403 ? 'Signed in, but not allowed to read' : 'Not accepted'}: ${error.message}`
          : String(error),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="sign-in" aria-labelledby="sign-in-title">
      <form className="card sign-in-card" onSubmit={(event) => void submit(event)}>
        <h1 id="sign-in-title">Sign in</h1>
        {oidc === undefined ? (
          <p className="muted">This Kubedag API server asks for credentials. They are kept in this tab only.</p>
        ) : (
          <ProviderSignIn provider={oidc.provider} ended={oidc.ended === true} />
        )}
        <KindChoice kind={kind} onKind={setKind} />
        <CredentialFields kind={kind} tokenFirst={oidc === undefined} />
        {problem === undefined ? null : (
          <p className="form-problem" role="alert">
            {problem}
          </p>
        )}
        {/* The provider's button is the way in when there is one; this one steps back. */}
        <button type="submit" className={oidc === undefined ? 'button button-primary' : 'button'} disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}

function KindChoice({ kind, onKind }: { readonly kind: Kind; readonly onKind: (kind: Kind) => void }): ReactNode {
  const choice = (value: Kind, text: string): ReactNode => (
    <label>
      <input
        type="radio"
        name="kind"
        value={value}
        checked={kind === value}
        onChange={() => {
          onKind(value);
        }}
      />
      <span>{text}</span>
    </label>
  );
  return (
    <fieldset className="segmented">
      <legend className="visually-hidden">Sign in with</legend>
      {choice('token', 'Token')}
      {choice('basic', 'User and password')}
    </fieldset>
  );
}

/** A token's field, or a user's and a password's; `tokenFirst` focuses the token when it is the way in. */
function CredentialFields({ kind, tokenFirst }: { readonly kind: Kind; readonly tokenFirst: boolean }): ReactNode {
  if (kind === 'token')
    return (
      <label className="field">
        <span>Token</span>
        {/* Focused at once only when it is the way in; with a provider, its button comes first. */}
        <input name="token" type="password" autoComplete="off" required autoFocus={tokenFirst} />
        <small className="muted">An API token, or a Kubernetes token (kubectl create token …).</small>
      </label>
    );
  return (
    <>
      <label className="field">
        <span>User</span>
        <input name="username" autoComplete="username" required autoFocus />
      </label>
      <label className="field">
        <span>Password</span>
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
    </>
  );
}
